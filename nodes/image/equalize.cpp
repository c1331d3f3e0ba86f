// Equalize: histogram equalization, global (cv::equalizeHist) or adaptive (CLAHE), of the luma
// or of each channel.
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <vector>

namespace {

// One channel equalized at integer depth: global on 8 bits (equalizeHist's only depth), CLAHE on
// the source's 8 or 16 bits (float sources at 16). Float in, float out.
cv::Mat equalize_channel(const cv::Mat& channel, bool adaptive, int depth, double clip_limit, int tiles) {
    cv::Mat samples, out;
    if (!adaptive) {
        cv::equalizeHist(ff::nodes::to_8bit(channel), out);
        return ff::nodes::to_unit_float(out);
    }
    samples = ff::nodes::to_sample_depth(channel, depth == CV_8U ? CV_8U : CV_16U);
    cv::createCLAHE(clip_limit, cv::Size(tiles, tiles))->apply(samples, out);
    return ff::nodes::to_unit_float(out);
}

} // namespace

FF_NODE(equalize) =
    ff::op("Equalize", "image")
        .doc("Spreads the values over the whole range by histogram equalization: global "
             "(cv::equalizeHist) or adaptive per tile with a clip limit (clahe, "
             "cv::createCLAHE). Colour images equalize their luma (Y of YCrCb, colour kept) or each "
             "channel apart (`channels: each`). OpenCV equalizes integer samples only: global works "
             "on 8 bits (8-bit images exactly; 16-bit and float images are rounded to 8 bits, so "
             "their result has 256 levels); clahe works on 8-bit images at 8 bits and on 16-bit "
             "and float ones at 16 bits (floats clipped to [0, 1]). Gray stays gray; alpha is kept.")
        .input("image", ff::kImage, "image to equalize")
        .output("image", ff::kImage, "equalized image")
        .param_enum("method", "global", "global|clahe", "global: one histogram; clahe: per tile, contrast limited")
        .param_enum("channels", "luma", "luma|each", "luma: equalize brightness, keep colour; each: every channel apart")
        .param_float("clip_limit", 2.0, 0.0, 1000.0, "clahe: contrast limit per tile (0: none)")
        .applies_when("method=clahe")
        .param_int("tiles", 8, 1, 256, "clahe: tiles per side")
        .applies_when("method=clahe")
        .execute([](ff::Node& node) {
            const bool adaptive = node.string("method") == "clahe";
            const int depth = ff::nodes::source_depth(node.image("image").bits);
            const double clip_limit = node.number("clip_limit");
            const int tiles = int(node.integer("tiles"));
            const bool luma = node.string("channels") == "luma";
            ff::nodes::map_colour(node, [&](const cv::Mat& colour) {
                auto equalize = [&](const cv::Mat& channel) {
                    return equalize_channel(channel, adaptive, depth, clip_limit, tiles);
                };
                if (colour.channels() == 1) return equalize(colour);
                cv::Mat out;
                std::vector<cv::Mat> planes;
                if (!luma) {
                    cv::split(colour, planes);
                    for (cv::Mat& plane : planes) plane = equalize(plane);
                    cv::merge(planes, out);
                    return out;
                }
                cv::Mat ycrcb;
                cv::cvtColor(colour, ycrcb, cv::COLOR_RGB2YCrCb);
                cv::split(ycrcb, planes);
                planes[0] = equalize(planes[0]);
                cv::merge(planes, ycrcb);
                cv::cvtColor(ycrcb, out, cv::COLOR_YCrCb2RGB);
                return out;
            });
        });
