// Levels: input black and white points, gamma, output range, brightness and contrast in one
// pointwise map of the colour channels.
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

namespace {

void check_points(ff::Node& node) { ff::nodes::check_order(node, "black", "white", false); }

} // namespace

FF_NODE(levels) =
    ff::op("Levels", "image")
        .doc("Adjusts tones, in this order: v = (x - black) / (white - black), clipped to [0, 1]; "
             "v = v^(1 / gamma) (gamma > 1 brightens the mid-tones); v = out_black + v x "
             "(out_white - out_black); v = (v - 0.5) x contrast + 0.5 + brightness. The defaults "
             "change nothing. The result is not clipped (integer files clip when written). "
             "Colour channels only: gray stays gray, alpha is kept.")
        .input("image", ff::kImage, "image to adjust")
        .output("image", ff::kImage, "adjusted image")
        .param_float("black", 0.0, -10.0, 10.0, "input value that becomes black (0)")
        .param_float("white", 1.0, -10.0, 10.0, "input value that becomes white (1)")
        .param_float("gamma", 1.0, 0.01, 100.0, "mid-tone gamma: above 1 brightens, below 1 darkens")
        .param_float("out_black", 0.0, -10.0, 10.0, "output value of black")
        .param_float("out_white", 1.0, -10.0, 10.0, "output value of white")
        .param_float("brightness", 0.0, -10.0, 10.0, "added to every value, last")
        .param_float("contrast", 1.0, 0.0, 100.0, "scale about mid-gray 0.5: 0 flat gray, 1 unchanged")
        .validate(check_points)
        .execute([](ff::Node& node) {
            check_points(node);
            const double black = node.number("black"), white = node.number("white");
            const double gamma = node.number("gamma");
            const double out_black = node.number("out_black"), out_white = node.number("out_white");
            const double contrast = node.number("contrast"), brightness = node.number("brightness");
            ff::nodes::map_colour(node, [&](const cv::Mat& colour) {
                cv::Mat v;
                colour.convertTo(v, CV_32F, 1.0 / (white - black), -black / (white - black));
                v = cv::max(cv::min(v, 1.0), 0.0);
                if (gamma != 1.0) cv::pow(v, 1.0 / gamma, v);
                // The output range and the contrast about 0.5 are both linear: one pass.
                const double scale = (out_white - out_black) * contrast;
                v.convertTo(v, CV_32F, scale, (out_black - 0.5) * contrast + 0.5 + brightness);
                return v;
            });
        });
