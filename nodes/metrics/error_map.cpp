#include "error_map.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <stdexcept>

namespace ff::metrics {

namespace {

constexpr int kQuantileBins = 4096;

template <class T>
void absolute_error_rows(const cv::Mat& a, const cv::Mat& b, cv::Mat& out, const cv::Range& rows,
                         float scale) {
    const int channels = a.channels();
    const float per_value = scale / float(channels);
    for (int y = rows.start; y < rows.end; ++y) {
        const T* pa = a.ptr<T>(y);
        const T* pb = b.ptr<T>(y);
        float* po = out.ptr<float>(y);
        for (int x = 0; x < a.cols; ++x) {
            float sum = 0;
            for (int c = 0; c < channels; ++c) {
                const int i = x * channels + c;
                sum += std::abs(float(pa[i]) - float(pb[i]));
            }
            po[x] = sum * per_value;
        }
    }
}

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
    cv::Mat out(reference.size(), CV_32FC1);
    cv::parallel_for_(cv::Range(0, reference.rows), [&](const cv::Range& rows) {
        if (depth == CV_8U) absolute_error_rows<uchar>(reference, image, out, rows, 1.f / 255.f);
        else if (depth == CV_32F) absolute_error_rows<float>(reference, image, out, rows, 1.f);
        else absolute_error_rows<double>(reference, image, out, rows, 1.f);
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
