#include "neural_images.hpp"

#include "common/atomic_write.hpp"
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>

namespace ff::neural {

cv::Mat feature_image(const ff::engine::Model& model) {
    const auto& c = model.config;
    const size_t cells = size_t(c.grid_width) * c.grid_height;
    if (c.grid_channels == 0 || model.encoding_params.size() != cells * c.grid_channels)
        throw Error("internal error: grid has " + std::to_string(model.encoding_params.size()) +
                    " values, expected " + std::to_string(cells * c.grid_channels));
    const uint32_t shown = std::min<uint32_t>(3, c.grid_channels);
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (size_t i = 0; i < cells; ++i)
        for (uint32_t k = 0; k < shown; ++k) {
            float v = model.encoding_params[i * c.grid_channels + k];
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    // A constant frame (e.g. an all-zero initial grid) shows as mid grey rather than dividing by 0.
    const float range = hi > lo ? hi - lo : 0.0f;
    cv::Mat out(int(c.grid_height), int(c.grid_width), CV_32FC3);
    float* p = out.ptr<float>();
    for (size_t i = 0; i < cells; ++i)
        for (uint32_t k = 0; k < 3; ++k) {
            float v = model.encoding_params[i * c.grid_channels + std::min(k, shown - 1)];
            p[i * 3 + k] = range > 0 ? (v - lo) / range : 0.5f;
        }
    return out;
}

namespace {

cv::Mat bgr8(const cv::Mat& rgb) {
    if (rgb.type() != CV_32FC3 || rgb.empty())
        throw Error("internal error: expected a non-empty CV_32FC3 image");
    // Quantised first, so that the channel swap moves a quarter of the bytes (the same result).
    cv::Mat bgr;
    cv::cvtColor(ff::nodes::to_8bit(rgb), bgr, cv::COLOR_RGB2BGR);
    return bgr;
}

} // namespace

std::vector<unsigned char> png_bytes(const cv::Mat& rgb) {
    std::vector<unsigned char> out;
    if (!cv::imencode(".png", bgr8(rgb), out)) throw Error("PNG encoding failed");
    return out;
}

std::string png_text(const cv::Mat& rgb) {
    const std::vector<unsigned char> bytes = png_bytes(rgb);
    return std::string(bytes.begin(), bytes.end());
}

} // namespace ff::neural
