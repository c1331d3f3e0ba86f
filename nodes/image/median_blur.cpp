// MedianBlur: each value replaced by the median of its size x size neighbourhood (cv::medianBlur).
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

namespace {

// OpenCV's median filter takes floats and 16-bit samples up to 5x5; larger sizes only 8-bit.
constexpr int kLargestForAnyDepth = 5;

void check_size(ff::Node& node) {
    if (node.integer("size") % 2 == 0)
        throw ff::ParamError("size", "size must be odd (3, 5, 7, ...), got " + std::to_string(node.integer("size")));
}

} // namespace

FF_NODE(median_blur) =
    ff::op("MedianBlur", "image")
        .doc("Replaces each value by the median of the size x size pixels around it "
             "(cv::medianBlur, edges replicated): removes salt-and-pepper noise, keeps edges. "
             "Sizes 3 and 5 work at every depth; larger sizes need 8-bit samples (OpenCV's only "
             "depth for them): an 8-bit image is rounded to them (exact for one read from an "
             "8-bit file), a 16-bit or float image is refused. Gray, RGB and RGBA keep their "
             "channels (alpha is filtered too).")
        .input("image", ff::kImage, "image to filter")
        .output("image", ff::kImage, "filtered image")
        .param_int("size", 3, 3, 255, "neighbourhood size in pixels, odd")
        .validate(check_size)
        .execute([](ff::Node& node) {
            check_size(node);
            const ff::ImageView view = node.image("image");
            const cv::Mat in = ff::nodes::native_mat(view, "image");
            const int size = int(node.integer("size"));
            const auto median = [size](const cv::Mat& samples) {
                cv::Mat out;
                cv::medianBlur(samples, out, size);
                return ff::nodes::to_unit_float(out);
            };
            if (size <= kLargestForAnyDepth)
                return ff::nodes::output_native(node, "image", ff::nodes::cancellable_filter(node, in, "filtering", median));
            const int depth = ff::nodes::source_depth(view.bits);
            if (depth != CV_8U)
                throw ff::ParamError("size", "size " + std::to_string(size) + " needs an 8-bit image (OpenCV's median "
                                             "filter takes sizes above 5 on 8-bit samples only) and this image is " +
                                             ff::nodes::depth_name(depth) + ": use size 3 or 5");
            ff::nodes::output_native(node, "image", ff::nodes::cancellable_filter(node, ff::nodes::to_8bit(in), "filtering", median));
        });
