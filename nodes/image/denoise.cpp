// Denoise: non-local means (cv::fastNlMeansDenoising / fastNlMeansDenoisingColored), on 8- and
// 16-bit samples, the depths OpenCV implements it for.
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>

#include <vector>

namespace {

void check_windows(ff::Node& node) {
    for (const char* param : {"template_size", "search_size"})
        if (node.integer(param) % 2 == 0)
            throw ff::ParamError(param, std::string(param) + " must be odd, got " + std::to_string(node.integer(param)));
    if (node.integer("search_size") < node.integer("template_size"))
        throw ff::ParamError("search_size", "search_size (" + std::to_string(node.integer("search_size")) +
                                                ") must not be smaller than template_size (" +
                                                std::to_string(node.integer("template_size")) + ")");
}

// 8-bit samples: OpenCV's colour variant for RGB (luma and colour apart, in Lab), the plain one
// for gray.
cv::Mat denoise_8bit(const cv::Mat& colour, float h, float h_colour, int t, int s) {
    cv::Mat out;
    if (colour.channels() == 1) {
        cv::fastNlMeansDenoising(colour, out, h, t, s);
        return out;
    }
    cv::Mat bgr;
    cv::cvtColor(colour, bgr, cv::COLOR_RGB2BGR); // its Lab conversion reads BGR
    cv::fastNlMeansDenoisingColored(bgr, out, h, h_colour, t, s);
    cv::cvtColor(out, out, cv::COLOR_BGR2RGB);
    return out;
}

} // namespace

FF_NODE(denoise) =
    ff::op("Denoise", "image")
        .doc("Removes noise by non-local means (cv::fastNlMeansDenoisingColored for RGB, "
             "cv::fastNlMeansDenoising for gray): each pixel becomes a mean of pixels whose "
             "surroundings look alike. `strength` is OpenCV's h in 8-bit levels (10 removes "
             "typical camera noise; higher removes more, and detail with it). OpenCV implements it "
             "on 8- and 16-bit samples only: an 8-bit image is rounded to 8 bits (exact for one "
             "read from an 8-bit file); a 16-bit image is denoised at 16 bits with OpenCV's L1 "
             "distance (its only one there; h scaled by 257, the channels together); a float "
             "image is refused. RGBA keeps its alpha as it is.")
        .input("image", ff::kImage, "noisy image")
        .output("image", ff::kImage, "denoised image")
        .param_float("strength", 10.0, 0.1, 255.0, "filter strength h, in 8-bit levels")
        .param_float("colour_strength", 10.0, 0.1, 255.0, "the same for colour (RGB images at 8 bits)")
        .param_int("template_size", 7, 1, 35, "odd size of the patch compared around each pixel")
        .param_int("search_size", 21, 1, 101, "odd size of the window searched for similar patches")
        .validate(check_windows)
        .execute([](ff::Node& node) {
            check_windows(node);
            const int depth = ff::nodes::source_depth(node.image("image").bits);
            if (depth == CV_32F)
                throw ff::Error("Denoise needs an 8- or 16-bit image (OpenCV's non-local means has no float "
                                "version) and this image is float");
            const float h = float(node.number("strength")), h_colour = float(node.number("colour_strength"));
            const int t = int(node.integer("template_size")), s = int(node.integer("search_size"));
            ff::nodes::map_colour(node, [&](const cv::Mat& colour) {
                const cv::Mat samples = ff::nodes::to_sample_depth(colour, depth);
                return ff::nodes::cancellable_filter(node, samples, "denoising", [=](const cv::Mat& in) {
                    if (depth == CV_8U) return ff::nodes::to_unit_float(denoise_8bit(in, h, h_colour, t, s));
                    cv::Mat out;
                    cv::fastNlMeansDenoising(in, out, std::vector<float>{h * 257.0f}, t, s, cv::NORM_L1);
                    return ff::nodes::to_unit_float(out);
                });
            });
        });
