// GaussianBlur and UnsharpMask: OpenCV's Gaussian filter, and sharpening by adding back the
// difference from it.
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
