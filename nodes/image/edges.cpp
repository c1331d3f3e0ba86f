// Canny and Sobel: edges, and the derivatives they are found from.
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

namespace {

void check_thresholds(ff::Node& node) { ff::nodes::check_order(node, "low", "high", true); }

void check_aperture(ff::Node& node, const char* param, bool one_allowed) {
    const int64_t size = node.integer(param);
    if ((size == 1 && one_allowed) || size == 3 || size == 5 || size == 7) return;
    throw ff::ParamError(param, std::string(param) + " must be " + (one_allowed ? "1, " : "") + "3, 5 or 7, got " +
                                    std::to_string(size));
}

} // namespace

FF_NODE(canny) =
    ff::op("Canny", "image")
        .doc("Edges by Canny's method (cv::Canny): a one-channel image, 1 on edges and 0 "
             "elsewhere. Gradients above `high` start an edge, those above `low` continue one; "
             "both are in OpenCV's units for 8-bit images (the Sobel response of 0-255 samples). "
             "cv::Canny takes 8-bit samples only: the image is rounded to 8 bits first (exact for "
             "one read from an 8-bit file). RGB uses the strongest channel's gradient; alpha is "
             "ignored.")
        .input("image", ff::kImage, "image to find edges in")
        .output("image", ff::kImage, "edge map, one channel")
        .param_float("low", 50.0, 0.0, 1e5, "hysteresis threshold that continues an edge")
        .param_float("high", 150.0, 0.0, 1e5, "threshold that starts an edge")
        .param_int("aperture", 3, 3, 7, "Sobel aperture: 3, 5 or 7")
        .param_bool("l2_gradient", false, "gradient magnitude as the L2 norm (true) or |dx| + |dy|")
        .validate([](ff::Node& node) {
            check_thresholds(node);
            check_aperture(node, "aperture", false);
        })
        .execute([](ff::Node& node) {
            check_thresholds(node);
            check_aperture(node, "aperture", false);
            const cv::Mat colour = ff::nodes::split_alpha(ff::nodes::native_mat(node.image("image"), "image")).colour;
            cv::Mat edges, out;
            cv::Canny(ff::nodes::to_8bit(colour), edges, node.number("low"), node.number("high"),
                      int(node.integer("aperture")), node.flag("l2_gradient"));
            edges.convertTo(out, CV_32F, 1.0 / 255.0);
            ff::nodes::output_native(node, "image", out);
            node.set_output_bits("image", 8);
        });

FF_NODE(sobel) =
    ff::op("Sobel", "image")
        .doc("Derivatives by the Sobel operator (cv::Sobel on the floats, at every depth): "
             "direction x or y gives the signed derivative, magnitude sqrt(dx^2 + dy^2). Values "
             "are x `scale` and not clipped (a unit step gives 4 with size 3; integer files clip "
             "negatives to 0 when written). Gray stays gray, RGB gives each channel's "
             "derivative; alpha is dropped. Edges reflected.")
        .input("image", ff::kImage, "image to differentiate")
        .output("image", ff::kImage, "derivative")
        .param_enum("direction", "magnitude", "x|y|magnitude", "which derivative")
        .param_int("size", 3, 1, 7, "kernel size: 1, 3, 5 or 7")
        .param_float("scale", 1.0, -1e6, 1e6, "factor on the result")
        .validate([](ff::Node& node) { check_aperture(node, "size", true); })
        .execute([](ff::Node& node) {
            check_aperture(node, "size", true);
            const cv::Mat colour = ff::nodes::split_alpha(ff::nodes::native_mat(node.image("image"), "image")).colour;
            const std::string direction = node.string("direction");
            const int size = int(node.integer("size"));
            const double scale = node.number("scale");
            cv::Mat dx, dy, out;
            if (direction != "y") cv::Sobel(colour, dx, CV_32F, 1, 0, size, scale, 0, cv::BORDER_REFLECT_101);
            if (direction != "x") cv::Sobel(colour, dy, CV_32F, 0, 1, size, scale, 0, cv::BORDER_REFLECT_101);
            if (direction == "x") {
                out = dx;
            } else if (direction == "y") {
                out = dy;
            } else {
                cv::magnitude(dx.reshape(1), dy.reshape(1), out); // per value, every channel
                out = out.reshape(colour.channels());
            }
            ff::nodes::output_native(node, "image", out);
        });
