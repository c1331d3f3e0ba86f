// Normalize: stretch the values to a range, or scale them to a norm (cv::normalize).
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace {

void check_range(ff::Node& node) {
    if (node.string("norm") == "minmax") ff::nodes::check_order(node, "low", "high", true);
}

int norm_type(const std::string& name) {
    if (name == "l1") return cv::NORM_L1;
    if (name == "l2") return cv::NORM_L2;
    if (name == "inf") return cv::NORM_INF;
    return cv::NORM_MINMAX;
}

} // namespace

FF_NODE(normalize) =
    ff::op("Normalize", "image")
        .doc("Stretches the colour values so the darkest becomes `low` and the brightest `high` "
             "(norm minmax, cv::normalize NORM_MINMAX), or scales them so their L1, L2 or max norm "
             "is `high`. One range for all colour channels, or each channel on its own "
             "(`per_channel`). A flat image becomes `low`. Gray stays gray; alpha is kept.")
        .input("image", ff::kImage, "image to normalize")
        .output("image", ff::kImage, "normalized image")
        .param_enum("norm", "minmax", "minmax|l1|l2|inf", "minmax: stretch to [low, high]; l1, l2, inf: scale to that norm = high")
        .param_float("low", 0.0, -1e6, 1e6, "the darkest value after a minmax stretch")
        .param_float("high", 1.0, -1e6, 1e6, "the brightest value after a minmax stretch, or the norm")
        .param_bool("per_channel", false, "stretch each colour channel on its own (changes the colours)")
        .validate(check_range)
        .execute([](ff::Node& node) {
            check_range(node);
            const int type = norm_type(node.string("norm"));
            const double low = node.number("low"), high = node.number("high");
            const bool per_channel = node.flag("per_channel");
            ff::nodes::map_colour(node, [&](const cv::Mat& colour) {
                // NORM_MINMAX takes alpha and beta as the range; the others take alpha as the norm.
                const double alpha = type == cv::NORM_MINMAX ? low : high;
                cv::Mat out;
                if (!per_channel) {
                    cv::normalize(colour, out, alpha, high, type);
                    return out;
                }
                std::vector<cv::Mat> planes;
                cv::split(colour, planes);
                for (cv::Mat& plane : planes) cv::normalize(plane, plane, alpha, high, type);
                cv::merge(planes, out);
                return out;
            });
        });
