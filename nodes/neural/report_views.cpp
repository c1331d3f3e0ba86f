#include "report_views.hpp"

#include "metrics/error_map.hpp"
#include "png_size.hpp"
#include "psnr.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <exception>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ff::neural {

namespace {

constexpr double kScaleQuantile = 0.995;
constexpr int kCropSide = 160;

double region_mse(const cv::Mat& a, const cv::Mat& b, const cv::Rect& r) {
    return cv::norm(a(r), b(r), cv::NORM_L2SQR) / (double(r.area()) * 3.0 * 255.0 * 255.0);
}

} // namespace

float shared_error_scale(const ReportImages& images) {
    return ff::metrics::error_quantile({images.bilinear_error, images.learned_error}, kScaleQuantile);
}

int crop_side(cv::Size image) {
    return std::max(1, std::min({kCropSide, image.width, image.height}));
}

std::vector<ReportCrop> most_different_regions(const ReportImages& images, int side, int count) {
    const cv::Size size = images.truth.size();
    const int columns = std::max(1, size.width / side), rows = std::max(1, size.height / side);
    struct Region {
        cv::Rect rect;
        double bilinear_mse = 0, learned_mse = 0;
    };
    std::vector<Region> regions(size_t(columns) * size_t(rows));
    // The tiles are centred in the image: the leftover margin is split between both sides.
    const int x0 = std::max(0, (size.width - columns * side) / 2);
    const int y0 = std::max(0, (size.height - rows * side) / 2);
    cv::parallel_for_(cv::Range(0, int(regions.size())), [&](const cv::Range& range) {
        for (int i = range.start; i < range.end; ++i) {
            Region& r = regions[size_t(i)];
            r.rect = cv::Rect(x0 + (i % columns) * side, y0 + (i / columns) * side, side, side) &
                     cv::Rect(cv::Point(0, 0), size);
            r.bilinear_mse = region_mse(images.truth, images.bilinear, r.rect);
            r.learned_mse = region_mse(images.truth, images.learned, r.rect);
        }
    });
    std::vector<size_t> order(regions.size());
    std::iota(order.begin(), order.end(), size_t(0));
    auto difference = [&](size_t i) { return std::abs(regions[i].bilinear_mse - regions[i].learned_mse); };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return difference(a) > difference(b); });

    std::vector<ReportCrop> crops;
    std::vector<std::function<PngBytes()>> encodes;
    for (size_t i = 0; i < order.size() && int(crops.size()) < count; ++i) {
        const Region& r = regions[order[i]];
        ReportCrop crop;
        crop.x = r.rect.x, crop.y = r.rect.y, crop.width = r.rect.width, crop.height = r.rect.height;
        crop.bilinear_psnr = psnr_from_mse(r.bilinear_mse);
        crop.learned_psnr = psnr_from_mse(r.learned_mse);
        crops.push_back(std::move(crop));
        for (const cv::Mat* image : {&images.truth, &images.bilinear, &images.learned})
            encodes.push_back([image, rect = r.rect] { return rgb8_png((*image)(rect)); });
    }
    std::vector<PngBytes> pngs = encode_in_parallel(encodes);
    for (size_t i = 0; i < crops.size(); ++i) {
        crops[i].truth = std::move(pngs[3 * i]);
        crops[i].bilinear = std::move(pngs[3 * i + 1]);
        crops[i].learned = std::move(pngs[3 * i + 2]);
    }
    return crops;
}

cv::Size view_size(cv::Size image, int max_side) {
    const int longer = std::max(image.width, image.height);
    if (longer <= max_side) return image;
    const double f = double(max_side) / longer;
    return {std::max(1, int(std::lround(image.width * f))), std::max(1, int(std::lround(image.height * f)))};
}

cv::Mat view_of(const cv::Mat& image, int max_side) {
    const cv::Size size = view_size(image.size(), max_side);
    if (size == image.size()) return image;
    cv::Mat out;
    cv::resize(image, out, size, 0, 0, cv::INTER_AREA);
    return out;
}

PngBytes error_view_png(const cv::Mat& error, int max_side, float scale) {
    return rgb8_png(ff::metrics::colour_error(view_of(error, max_side), scale));
}

PngBytes index_thumbnail(const ReportImages& images, int height) {
    const cv::Size size = images.truth.size();
    const int width = std::max(1, int(std::lround(double(size.width) * height / size.height)));
    cv::Mat learned, gain;
    cv::resize(images.learned, learned, cv::Size(width, height), 0, 0, cv::INTER_AREA);
    // Per pixel: how much closer the learned image is to the truth than the bilinear one, averaged
    // over the thumbnail pixel, on a scale of +-0.05 (12.75 8-bit levels).
    cv::Mat closer = images.bilinear_error - images.learned_error;
    cv::resize(closer, gain, cv::Size(width, height), 0, 0, cv::INTER_AREA);
    cv::Mat picture(height, 2 * width, CV_8UC3);
    learned.copyTo(picture(cv::Rect(0, 0, width, height)));
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float g = std::clamp(gain.at<float>(y, x) / 0.05f, -1.f, 1.f);
            const auto fade = [](float v) { return cv::saturate_cast<uchar>(255.0 * (1.0 - v)); };
            // White where they are alike; towards green where learned gains, magenta where it loses.
            picture.at<cv::Vec3b>(y, width + x) =
                g >= 0 ? cv::Vec3b(fade(g * 0.8f), 255 - uchar(g * 60), fade(g * 0.8f))
                       : cv::Vec3b(255 - uchar(-g * 60), fade(-g * 0.8f), 255 - uchar(-g * 60));
        }
    return rgb8_png(picture);
}

PngBytes rgb8_png(const cv::Mat& rgb8) { return encode_rgb8_png(rgb8, kPngFastest); }

std::vector<PngBytes> encode_in_parallel(const std::vector<std::function<PngBytes()>>& encodes) {
    std::vector<PngBytes> out(encodes.size());
    std::vector<std::exception_ptr> errors(encodes.size());
    cv::parallel_for_(cv::Range(0, int(encodes.size())), [&](const cv::Range& range) {
        for (int i = range.start; i < range.end; ++i) {
            try {
                out[size_t(i)] = encodes[size_t(i)]();
            } catch (...) { // OpenCV's workers must not throw: rethrown below, on the caller's thread
                errors[size_t(i)] = std::current_exception();
            }
        }
    });
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

} // namespace ff::neural
