#include "output_size.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace ff::neural {

namespace {

constexpr double kMaxSide = 65536;

uint32_t scaled(double size, double factor, const char* param) {
    double value = std::max(1.0, std::round(size * factor));
    if (!(value <= kMaxSide))
        throw ParamError(param, "the output would be " + std::to_string(int64_t(std::min(value, 1e15))) +
                                    " pixels wide or high; at most 65536");
    return uint32_t(value);
}

} // namespace

OutputSize infer_output_size(int64_t width, int64_t height, double scale, uint32_t train_width,
                             uint32_t train_height) {
    if (width < 0 || height < 0 || width > kMaxSide || height > kMaxSide)
        throw ParamError(width < 0 || width > kMaxSide ? "width" : "height",
                         "width and height must be in 0..65536 (0 = from the model)");
    if (scale < 0 || !std::isfinite(scale)) throw ParamError("scale", "scale must be positive");
    if (scale > 0 && (width > 0 || height > 0))
        throw ParamError("scale", "give either width/height or scale, not both");
    if (train_width == 0 || train_height == 0)
        throw Error("the model has no training image size");

    OutputSize out{train_width, train_height};
    if (width > 0 && height > 0) {
        out = {uint32_t(width), uint32_t(height)};
    } else if (width > 0) {
        out = {uint32_t(width), scaled(train_height, double(width) / train_width, "width")};
    } else if (height > 0) {
        out = {scaled(train_width, double(height) / train_height, "height"), uint32_t(height)};
    } else if (scale > 0) {
        out = {scaled(train_width, scale, "scale"), scaled(train_height, scale, "scale")};
    }
    if (uint64_t(out.width) * out.height > kMaxRenderPixels)
        throw ParamError(scale > 0 ? "scale" : "width",
                         "output size " + std::to_string(out.width) + "x" +
                             std::to_string(out.height) + " is too large (at most " +
                             std::to_string(kMaxRenderPixels) + " pixels)");
    return out;
}

OutputSize fit_within(uint32_t width, uint32_t height, uint32_t longest) {
    const uint32_t side = std::max(width, height);
    if (longest == 0 || side <= longest) return {width, height};
    const double scale = double(longest) / side;
    auto scaled = [&](uint32_t v) { return std::max<uint32_t>(1, uint32_t(std::lround(v * scale))); };
    return {scaled(width), scaled(height)};
}

} // namespace ff::neural
