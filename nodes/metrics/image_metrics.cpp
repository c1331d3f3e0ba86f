#include "image_metrics.hpp"

#include "common/image_mat.hpp"

#include <opencv2/imgproc.hpp>

#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ff::metrics {

namespace {

constexpr int kSsimWindow = 11;
constexpr double kSsimSigma = 1.5;
constexpr double kSsimK1 = 0.01;
constexpr double kSsimK2 = 0.03;

void check_pair(const cv::Mat& reference, const cv::Mat& image) {
    if (reference.empty() || image.empty()) throw std::invalid_argument("metrics of an empty image");
    if (reference.size() != image.size())
        throw std::invalid_argument(
            "image size " + std::to_string(image.cols) + "x" + std::to_string(image.rows) +
            " differs from the reference's " + std::to_string(reference.cols) + "x" +
            std::to_string(reference.rows));
    if (reference.type() != image.type())
        throw std::invalid_argument("image and reference differ in pixel type");
    if (reference.channels() > 4) throw std::invalid_argument("metrics take 1 to 4 channels");
    const int depth = reference.depth();
    if (depth != CV_8U && depth != CV_16U && depth != CV_32F && depth != CV_64F)
        throw std::invalid_argument("metrics take 8-bit, 16-bit or float images");
}

double peak_of(const cv::Mat& image) {
    return image.depth() == CV_8U ? 255.0 : image.depth() == CV_16U ? 65535.0 : 1.0;
}

// Mean squared error in the image's own units.
double raw_mse(const cv::Mat& reference, const cv::Mat& image) {
    const double sum = cv::norm(reference, image, cv::NORM_L2SQR);
    return sum / double(reference.total() * size_t(reference.channels()));
}

// Mean SSIM of each channel of two CV_64F images (any channel count), dynamic range `peak`.
// All channels go through each filter together: one pass instead of one per channel.
cv::Scalar channel_ssims(const cv::Mat& x, const cv::Mat& y, double peak) {
    const double c1 = (kSsimK1 * peak) * (kSsimK1 * peak);
    const double c2 = (kSsimK2 * peak) * (kSsimK2 * peak);
    const cv::Mat kernel = cv::getGaussianKernel(kSsimWindow, kSsimSigma, CV_64F);
    auto blur = [&](const cv::Mat& in) {
        cv::Mat out;
        cv::sepFilter2D(in, out, CV_64F, kernel, kernel, cv::Point(-1, -1), 0,
                        cv::BORDER_REFLECT_101);
        return out;
    };
    const cv::Mat mu_x = blur(x), mu_y = blur(y);
    const cv::Mat xx = blur(x.mul(x)), yy = blur(y.mul(y)), xy = blur(x.mul(y));
    const cv::Mat mu_xx = mu_x.mul(mu_x), mu_yy = mu_y.mul(mu_y), mu_xy = mu_x.mul(mu_y);
    const cv::Mat sigma_xx = xx - mu_xx, sigma_yy = yy - mu_yy, sigma_xy = xy - mu_xy;

    const cv::Scalar k1 = cv::Scalar::all(c1), k2 = cv::Scalar::all(c2);
    cv::Mat numerator = (2 * mu_xy + k1).mul(2 * sigma_xy + k2);
    cv::Mat denominator = (mu_xx + mu_yy + k1).mul(sigma_xx + sigma_yy + k2);
    cv::Mat map;
    cv::divide(numerator, denominator, map);

    // Windows centred within half a window of the border reach outside the image; the
    // reference definition averages only the windows that lie fully inside.
    const int half = kSsimWindow / 2;
    if (x.cols >= kSsimWindow && x.rows >= kSsimWindow)
        map = map(cv::Rect(half, half, x.cols - 2 * half, x.rows - 2 * half));
    return cv::mean(map);
}

} // namespace

double mse(const cv::Mat& reference, const cv::Mat& image) {
    check_pair(reference, image);
    const double peak = peak_of(reference);
    return raw_mse(reference, image) / (peak * peak);
}

double psnr(const cv::Mat& reference, const cv::Mat& image) {
    check_pair(reference, image);
    return 20.0 * std::log10(peak_of(reference) / (std::sqrt(raw_mse(reference, image)) + DBL_EPSILON));
}

double ssim(const cv::Mat& reference, const cv::Mat& image) {
    check_pair(reference, image);
    cv::Mat x, y;
    reference.convertTo(x, CV_64F);
    image.convertTo(y, CV_64F);
    const cv::Scalar per_channel = channel_ssims(x, y, peak_of(reference));
    double total = 0;
    for (int c = 0; c < reference.channels(); ++c) total += per_channel[c];
    return total / reference.channels();
}

ImageMetrics compare(const cv::Mat& reference, const cv::Mat& image, uint32_t bits) {
    check_pair(reference, image);
    const bool is_float = reference.depth() == CV_32F || reference.depth() == CV_64F;
    if ((bits == 8 || bits == 16) && is_float)
        return compare(ff::nodes::at_depth(reference, bits), ff::nodes::at_depth(image, bits), 0);
    const double error = mse(reference, image);
    return {psnr(reference, image), ssim(reference, image), error, error == 0.0};
}

uint32_t metrics_bits(uint32_t source_bits) { return source_bits == 0 ? 8 : source_bits; }

} // namespace ff::metrics
