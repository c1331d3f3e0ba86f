#include "image_metrics.hpp"

#include "common/image_mat.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <vector>

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
// SSIM works on tiles of 128x128 window centres (about 1.5 MB of doubles per intermediate) and
// checks for cancellation after every 64 tiles (about 1 M pixels).
constexpr int kSsimTile = 128;
constexpr int kSsimTilesPerCheck = 64;

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

cv::Mat ssim_blur(const cv::Mat& in) {
    static const cv::Mat kernel = cv::getGaussianKernel(kSsimWindow, kSsimSigma, CV_64F);
    cv::Mat out;
    cv::sepFilter2D(in, out, CV_64F, kernel, kernel, cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
    return out;
}

// Per-channel sums of SSIM's per-pixel map over `area` of two CV_64F images (any channel count),
// dynamic range `peak`, with mirrored borders. The five local moments are filtered (all channels
// together); the formula then runs in one pass without temporaries.
cv::Scalar ssim_sums(const cv::Mat& x, const cv::Mat& y, double peak, const cv::Rect& area) {
    const double c1 = (kSsimK1 * peak) * (kSsimK1 * peak);
    const double c2 = (kSsimK2 * peak) * (kSsimK2 * peak);
    const cv::Mat mu_x = ssim_blur(x), mu_y = ssim_blur(y);
    const cv::Mat xx = ssim_blur(x.mul(x)), yy = ssim_blur(y.mul(y)), xy = ssim_blur(x.mul(y));
    const int channels = x.channels();
    cv::Scalar sums = cv::Scalar::all(0);
    for (int r = area.y; r < area.y + area.height; ++r) {
        const double *mx = mu_x.ptr<double>(r), *my = mu_y.ptr<double>(r);
        const double *sxx = xx.ptr<double>(r), *syy = yy.ptr<double>(r), *sxy = xy.ptr<double>(r);
        for (int c = 0; c < channels; ++c) {
            double sum = 0;
            for (int i = area.x * channels + c; i < (area.x + area.width) * channels; i += channels) {
                const double mxx = mx[i] * mx[i], myy = my[i] * my[i], mxy = mx[i] * my[i];
                sum += ((2 * mxy + c1) * (2 * (sxy[i] - mxy) + c2)) /
                       ((mxx + myy + c1) * ((sxx[i] - mxx) + (syy[i] - myy) + c2));
            }
            sums[c] += sum;
        }
    }
    return sums;
}

// Per-channel sums of the SSIM map over the "valid" window centres (those whose 11x11 window lies
// inside the image), computed tile by tile: each tile of centres reads its pixels plus half a
// window around them, so it sees exactly what the whole-image filter would, in a working set that
// stays in cache, and the tiles run in parallel. Tiles go in batches; `check` runs between them.
cv::Scalar valid_ssim_sums(const cv::Mat& reference, const cv::Mat& image, double peak,
                           const WorkCheck& check) {
    const int half = kSsimWindow / 2;
    const cv::Rect centres(half, half, reference.cols - 2 * half, reference.rows - 2 * half);
    const int tiles_x = (centres.width + kSsimTile - 1) / kSsimTile;
    const int tiles_y = (centres.height + kSsimTile - 1) / kSsimTile;
    const int tiles = tiles_x * tiles_y;
    std::vector<cv::Scalar> sums(size_t(tiles), cv::Scalar::all(0));
    auto run_tile = [&](int t) {
        const int tx = t % tiles_x, ty = t / tiles_x;
        const cv::Rect inner(centres.x + tx * kSsimTile, centres.y + ty * kSsimTile,
                             std::min(kSsimTile, centres.width - tx * kSsimTile),
                             std::min(kSsimTile, centres.height - ty * kSsimTile));
        const cv::Rect outer(inner.x - half, inner.y - half, inner.width + 2 * half,
                             inner.height + 2 * half);
        cv::Mat x, y;
        reference(outer).convertTo(x, CV_64F);
        image(outer).convertTo(y, CV_64F);
        sums[size_t(t)] = ssim_sums(x, y, peak, cv::Rect(half, half, inner.width, inner.height));
    };
    const int batch = std::max(1, kSsimTilesPerCheck);
    for (int first = 0; first < tiles; first += batch) {
        const int last = std::min(tiles, first + batch);
        cv::parallel_for_(cv::Range(first, last), [&](const cv::Range& range) {
            for (int t = range.start; t < range.end; ++t) run_tile(t);
        });
        if (check) check(size_t(last), size_t(tiles));
    }
    cv::Scalar total = cv::Scalar::all(0);
    for (const cv::Scalar& s : sums) total += s; // in tile order: the same result every run
    return total;
}

// Mean SSIM of each channel.
cv::Scalar channel_ssims(const cv::Mat& reference, const cv::Mat& image, double peak,
                         const WorkCheck& check) {
    if (reference.cols >= kSsimWindow && reference.rows >= kSsimWindow) {
        const double windows = double(reference.cols - kSsimWindow + 1) *
                               double(reference.rows - kSsimWindow + 1);
        return valid_ssim_sums(reference, image, peak, check) * (1.0 / windows);
    }
    // Smaller than a window: every pixel, mirrored borders.
    cv::Mat x, y;
    reference.convertTo(x, CV_64F);
    image.convertTo(y, CV_64F);
    return ssim_sums(x, y, peak, cv::Rect(0, 0, x.cols, x.rows)) * (1.0 / double(x.total()));
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

double ssim(const cv::Mat& reference, const cv::Mat& image, const WorkCheck& check) {
    check_pair(reference, image);
    const cv::Scalar per_channel = channel_ssims(reference, image, peak_of(reference), check);
    double total = 0;
    for (int c = 0; c < reference.channels(); ++c) total += per_channel[c];
    return total / reference.channels();
}

ImageMetrics compare(const cv::Mat& reference, const cv::Mat& image, uint32_t bits,
                     const WorkCheck& check) {
    check_pair(reference, image);
    const bool is_float = reference.depth() == CV_32F || reference.depth() == CV_64F;
    if ((bits == 8 || bits == 16) && is_float) {
        // `check` between the whole-image passes too (each a second or so at 8192x8192 on a
        // small machine), so a cancel is answered before SSIM's tiles begin.
        const cv::Mat quantized_reference = ff::nodes::at_depth(reference, bits);
        if (check) check(0, 1);
        const cv::Mat quantized_image = ff::nodes::at_depth(image, bits);
        if (check) check(0, 1);
        return compare(quantized_reference, quantized_image, 0, check);
    }
    const double error = mse(reference, image);
    const double db = psnr(reference, image);
    if (check) check(0, 1);
    return {db, ssim(reference, image, check), error, error == 0.0};
}

uint32_t metrics_bits(uint32_t source_bits) { return source_bits == 0 ? 8 : source_bits; }

} // namespace ff::metrics
