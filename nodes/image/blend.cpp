// Blend: two images of one size combined by a blend mode, weighed by opacity and an optional mask.
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <string>

namespace {

// `top` combined with `base` by `mode`, before weighing (float, the same layout).
cv::Mat combine(const cv::Mat& base, const cv::Mat& top, const std::string& mode) {
    cv::Mat out;
    if (mode == "mix") out = top;
    else if (mode == "add") cv::add(base, top, out);
    else if (mode == "subtract") cv::subtract(base, top, out);
    else if (mode == "multiply") cv::multiply(base, top, out);
    else if (mode == "difference") cv::absdiff(base, top, out);
    else if (mode == "lighten") cv::max(base, top, out);
    else if (mode == "darken") cv::min(base, top, out);
    else { // screen: 1 - (1 - base)(1 - top)
        cv::Mat inv_base, inv_top;
        cv::subtract(cv::Scalar::all(1.0), base, inv_base);
        cv::subtract(cv::Scalar::all(1.0), top, inv_top);
        cv::multiply(inv_base, inv_top, out);
        cv::subtract(cv::Scalar::all(1.0), out, out);
    }
    return out;
}

void check_size(const cv::Mat& image, const cv::Mat& other, const char* port) {
    if (other.size() != image.size())
        throw ff::Error(std::string("input '") + port + "' is " + ff::nodes::size_text(other.size()) +
                        " but 'image' is " + ff::nodes::size_text(image.size()) + ": they must be the same size");
}

} // namespace

FF_NODE(blend) =
    ff::op("Blend", "image")
        .doc("Combines `top` with `image` (the same size): mode mix (top itself), add, subtract "
             "(image - top), multiply, screen, difference (|image - top|), lighten (the larger), "
             "darken (the smaller); then result = image + (combined - image) x opacity x mask, "
             "mask being 1 where unconnected, else its gray value (colour masks by their luma). "
             "mix at opacity 0.5 is cv::addWeighted(image, 0.5, top, 0.5). Not clipped (integer files clip when written). Images of one "
             "channel count keep it (alpha blended like a colour); otherwise both are taken as RGB.")
        .input("image", ff::kImage, "base image")
        .input("top", ff::kImage, "image blended onto it")
        .optional_input("mask", ff::kImage, "where to blend (1) and where to keep the base (0)")
        .output("image", ff::kImage, "blended image")
        .param_enum("mode", "mix", "mix|add|subtract|multiply|screen|difference|lighten|darken", "how top combines with image")
        .param_float("opacity", 1.0, 0.0, 1.0, "how much of the combination to use: 0 keeps image")
        .execute([](ff::Node& node) {
            const ff::ImageView base_view = node.image("image"), top_view = node.image("top");
            const bool same_layout = base_view.channels == top_view.channels;
            const cv::Mat base = same_layout ? ff::nodes::native_mat(base_view, "image") : ff::nodes::rgb_mat(base_view, "image");
            const cv::Mat top = same_layout ? ff::nodes::native_mat(top_view, "top") : ff::nodes::rgb_mat(top_view, "top");
            check_size(base, top, "top");
            const cv::Mat combined = combine(base, top, node.string("mode"));
            const double opacity = node.number("opacity");
            cv::Mat out;
            const auto mask_view = node.optional_image("mask");
            if (!mask_view) {
                cv::addWeighted(base, 1.0 - opacity, combined, opacity, 0.0, out);
                return ff::nodes::output_native(node, "image", out);
            }
            const cv::Mat weights = ff::nodes::mask_weights(*mask_view, "mask");
            check_size(base, weights, "mask");
            ff::nodes::output_native(node, "image", ff::nodes::mix(base, combined, weights * opacity));
        });
