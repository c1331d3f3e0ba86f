// GaussianBlur, UnsharpMask and BoxBlur: OpenCV's Gaussian filter, sharpening by adding back the
// difference from it, and the mean over a box.
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

namespace {

// The kernel size follows sigma (OpenCV's rule for ksize 0); edges are reflected (BORDER_REFLECT_101).
cv::Mat gaussian(const cv::Mat& in, double sigma) {
    cv::Mat out;
    cv::GaussianBlur(in, out, cv::Size(0, 0), sigma, sigma, cv::BORDER_REFLECT_101);
    return out;
}

} // namespace

FF_NODE(gaussian_blur) =
    ff::op("GaussianBlur", "image")
        .doc("Blurs with a Gaussian of standard deviation sigma pixels (cv::GaussianBlur, kernel "
             "size from sigma, edges reflected).")
        .input("image", ff::kImage, "image to blur")
        .output("image", ff::kImage, "blurred image")
        .param_float("sigma", 1.0, 0.1, 100.0, "standard deviation in pixels")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            gaussian(in, node.number("sigma")).copyTo(ff::nodes::output_mat(node, "image", in.size()));
        });

FF_NODE(unsharp_mask) =
    ff::op("UnsharpMask", "image")
        .doc("Sharpens: image + amount x (image - GaussianBlur(image, sigma)). Values are not "
             "clamped to [0, 1].")
        .input("image", ff::kImage, "image to sharpen")
        .output("image", ff::kImage, "sharpened image")
        .param_float("sigma", 1.0, 0.1, 100.0, "standard deviation of the blur, in pixels")
        .param_float("amount", 1.0, 0.0, 10.0, "strength: 0 leaves the image as it is")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const double amount = node.number("amount");
            cv::Mat out = ff::nodes::output_mat(node, "image", in.size());
            cv::addWeighted(in, 1.0 + amount, gaussian(in, node.number("sigma")), -amount, 0.0, out);
        });

FF_NODE(box_blur) =
    ff::op("BoxBlur", "image")
        .doc("Blurs with the mean of a width x height box around each pixel (cv::blur, edges "
             "reflected). Gray, RGB and RGBA keep their channels (alpha is blurred too).")
        .input("image", ff::kImage, "image to blur")
        .output("image", ff::kImage, "blurred image")
        .param_int("width", 3, 1, 1001, "box width in pixels")
        .param_int("height", 0, 0, 1001, "box height in pixels; 0: as width")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            const int width = int(node.integer("width"));
            const int height = node.integer("height") ? int(node.integer("height")) : width;
            cv::Mat out;
            cv::blur(in, out, cv::Size(width, height), cv::Point(-1, -1), cv::BORDER_REFLECT_101);
            ff::nodes::output_native(node, "image", out);
        });
