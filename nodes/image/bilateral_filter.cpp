// BilateralFilter: edge-preserving smoothing, neighbours weighed by distance and by likeness
// (cv::bilateralFilter).
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

FF_NODE(bilateral_filter) =
    ff::op("BilateralFilter", "image")
        .doc("Smooths while keeping edges (cv::bilateralFilter): each pixel becomes a mean of its "
             "neighbours within `diameter`, weighed by a Gaussian of their distance (sigma_space, "
             "pixels) and of their difference in value (sigma_color, on the [0, 1] scale: 0.1 is "
             "about 25 levels of an 8-bit image). Computed on the floats at every depth (OpenCV's "
             "filter takes 8-bit and float samples). Gray and RGB; RGBA keeps its alpha as it is.")
        .input("image", ff::kImage, "image to smooth")
        .output("image", ff::kImage, "smoothed image")
        .param_int("diameter", 5, 0, 51, "neighbourhood diameter in pixels; 0: from sigma_space")
        .param_float("sigma_color", 0.1, 1e-4, 100.0, "how different two values may be and still mix, [0, 1] scale")
        .param_float("sigma_space", 2.0, 0.1, 100.0, "how far neighbours reach, in pixels")
        .execute([](ff::Node& node) {
            const int diameter = int(node.integer("diameter"));
            const double sigma_color = node.number("sigma_color"), sigma_space = node.number("sigma_space");
            ff::nodes::map_colour(node, [&](const cv::Mat& colour) {
                return ff::nodes::cancellable_filter(node, colour, "filtering", [=](const cv::Mat& in) {
                    cv::Mat out;
                    cv::bilateralFilter(in, out, diameter, sigma_color, sigma_space, cv::BORDER_REFLECT_101);
                    return out;
                });
            });
        });
