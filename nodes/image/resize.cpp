// Resize: to a width/height, or by a scale factor, with a chosen interpolation.
#include "common/image_mat.hpp"
#include "image/cv_options.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace {

constexpr int64_t kMaxSide = 1 << 16;

// Inputs are unknown in validate, so a missing size (which a connected `reference` supplies) is
// only an error once execute knows.
void check_params(ff::Node& node) {
    const int64_t width = node.integer("width"), height = node.integer("height");
    const double scale = node.number("scale");
    if (scale > 0 && (width > 0 || height > 0))
        throw ff::ParamError("scale", "give either scale or width/height, not both");
}

// The output size: the reference's, explicit sides, one side with the aspect ratio kept, or a
// scale.
cv::Size target_size(ff::Node& node, cv::Size in) {
    const int64_t width = node.integer("width"), height = node.integer("height");
    const double scale = node.number("scale");
    if (auto reference = node.optional_image("reference")) {
        if (scale > 0 || width > 0 || height > 0)
            throw ff::ParamError(scale > 0 ? "scale" : "width",
                                 "input 'reference' sets the size; leave width, height and scale at 0");
        return {int(reference->width), int(reference->height)};
    }
    if (scale <= 0 && width == 0 && height == 0)
        throw ff::ParamError("width", "give width and/or height, or scale, or connect 'reference'");
    double w = double(width), h = double(height);
    if (scale > 0) {
        w = std::round(in.width * scale);
        h = std::round(in.height * scale);
    } else if (width == 0) {
        w = std::round(double(in.width) * double(height) / in.height);
    } else if (height == 0) {
        h = std::round(double(in.height) * double(width) / in.width);
    }
    w = std::max(1.0, w);
    h = std::max(1.0, h);
    if (w > kMaxSide || h > kMaxSide)
        throw ff::Error("output size " + std::to_string(int64_t(w)) + "x" +
                        std::to_string(int64_t(h)) + " is over the limit of " +
                        std::to_string(kMaxSide) + " pixels per side");
    return {int(w), int(h)};
}

} // namespace

FF_NODE(resize) =
    ff::op("Resize", "image")
        .doc("Resizes an image to width x height, by a scale factor, or to the size of the "
             "image connected to 'reference'. With only one of width and height given, the "
             "other follows the aspect ratio. Cubic and Lanczos may overshoot [0, 1] slightly "
             "near edges; values are not clamped.")
        .input("image", ff::kImage, "image to resize")
        .optional_input("reference", ff::kImage, "if connected, resize to this image's size")
        .output("image", ff::kImage, "resized image")
        .param_int("width", 0, 0, kMaxSide, "output width in pixels; 0: from height or scale")
        .param_int("height", 0, 0, kMaxSide, "output height in pixels; 0: from width or scale")
        .param_float("scale", 0.0, 0.0, 1024.0, "scale factor for both sides; 0: use width/height")
        .param_enum("interpolation", "linear", "nearest|linear|cubic|area|lanczos",
                    "interpolation (area: best for shrinking)")
        .validate(check_params)
        .execute([](ff::Node& node) {
            check_params(node);
            const int flag = ff::nodes::interpolation_flag("interpolation", node.string("interpolation"));
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const cv::Size size = target_size(node, in.size());
            cv::Mat out = ff::nodes::output_mat(node, "image", size);
            cv::resize(in, out, size, 0, 0, flag);
        });
