#include "error_map.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <stdexcept>

namespace ff::metrics {

namespace {

constexpr int kQuantileBins = 4096;

cv::Mat lookup_colours(const cv::Mat& levels) {
    cv::Mat bgr, rgb;
    cv::applyColorMap(levels, bgr, cv::COLORMAP_INFERNO);
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

} // namespace

cv::Mat absolute_error(const cv::Mat& reference, const cv::Mat& image) {
    if (reference.empty() || image.empty()) throw std::invalid_argument("error map of an empty image");
    if (reference.size() != image.size() || reference.type() != image.type())
        throw std::invalid_argument("error map of images that differ in size or pixel type");
    const int depth = reference.depth();
    if (depth != CV_8U && depth != CV_32F && depth != CV_64F)
        throw std::invalid_argument("error maps take 8-bit or float images");
    // Band by band in parallel, with OpenCV's vectorised absdiff and channel mix.
    const int channels = reference.channels();
    const float weight = float((depth == CV_8U ? 1.0 / 255.0 : 1.0) / channels);
    cv::Mat mix(1, channels, CV_32F, cv::Scalar(weight));
    cv::Mat out(reference.size(), CV_32FC1);
    cv::parallel_for_(cv::Range(0, reference.rows), [&](const cv::Range& rows) {
        cv::Mat diff, diff_float;
        cv::absdiff(reference.rowRange(rows), image.rowRange(rows), diff);
        diff.convertTo(diff_float, CV_32F);
        cv::Mat band = out.rowRange(rows);
        cv::transform(diff_float, band, mix);
    });
    return out;
}

float error_quantile(const std::vector<cv::Mat>& errors, double fraction) {
    std::vector<double> bins(kQuantileBins, 0.0);
    double total = 0;
    for (const cv::Mat& error : errors) {
        CV_Assert(error.type() == CV_32FC1);
        for (int y = 0; y < error.rows; ++y) {
            const float* row = error.ptr<float>(y);
            for (int x = 0; x < error.cols; ++x)
                bins[std::clamp(int(row[x] * kQuantileBins), 0, kQuantileBins - 1)] += 1;
        }
        total += double(error.total());
    }
    const double wanted = fraction * total;
    double seen = 0;
    int bin = 0;
    for (; bin < kQuantileBins - 1; ++bin) {
        seen += bins[size_t(bin)];
        if (seen >= wanted) break;
    }
    return std::max(float(bin + 1) / kQuantileBins, 1.f / 255.f);
}

cv::Mat colour_error(const cv::Mat& error, float scale) {
    CV_Assert(error.type() == CV_32FC1);
    if (!(scale > 0)) throw std::invalid_argument("an error map's colour scale must be above 0");
    cv::Mat levels;
    error.convertTo(levels, CV_8U, 255.0 / scale); // saturates above `scale`
    return lookup_colours(levels);
}

std::vector<std::array<unsigned char, 3>> error_colour_steps(int count) {
    cv::Mat levels(1, count, CV_8UC1);
    for (int i = 0; i < count; ++i)
        levels.at<uchar>(0, i) = cv::saturate_cast<uchar>(255.0 * i / std::max(1, count - 1));
    const cv::Mat rgb = lookup_colours(levels);
    std::vector<std::array<unsigned char, 3>> out;
    for (int i = 0; i < count; ++i) {
        const cv::Vec3b c = rgb.at<cv::Vec3b>(0, i);
        out.push_back({c[0], c[1], c[2]});
    }
    return out;
}

} // namespace ff::metrics
