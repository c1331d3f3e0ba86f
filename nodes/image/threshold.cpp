// Threshold: each value against a level, fixed or found by Otsu's or the triangle method
// (cv::threshold).
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

int threshold_type(const std::string& name) {
    if (name == "binary_inv") return cv::THRESH_BINARY_INV;
    if (name == "truncate") return cv::THRESH_TRUNC;
    if (name == "to_zero") return cv::THRESH_TOZERO;
    if (name == "to_zero_inv") return cv::THRESH_TOZERO_INV;
    return cv::THRESH_BINARY;
}

// The level Otsu's or the triangle method finds for one channel. OpenCV finds it on 8-bit
// samples only: the channel is rounded to 8 bits (exact for an 8-bit source) and the level,
// a whole 8-bit value, is returned on the [0, 1] scale.
double automatic_level(const cv::Mat& channel, int method) {
    cv::Mat ignored;
    return cv::threshold(ff::nodes::to_8bit(channel), ignored, 0, 255, method) / 255.0;
}

// cv::threshold on the floats, with the level as OpenCV takes it on the source's samples: on an
// 8- or 16-bit image a whole sample value (rounded down), and a value equal to it is not above
// it. The comparison is made halfway to the next sample value, where the float rounding of
// k / 255 cannot tip it (truncate caps at the level itself).
void threshold_at(const cv::Mat& in, cv::Mat& out, double level, double max, int type, int depth) {
    if (depth == CV_32F) {
        cv::threshold(in, out, level, max, type);
        return;
    }
    const double scale = ff::nodes::full_scale(depth);
    // 1e-7: a level given as k / 255 (a found level, or typed) lands on k, not just below it.
    const double whole = std::floor(level * scale + 1e-7);
    if (type == cv::THRESH_TRUNC) out = cv::min(in, whole / scale);
    else cv::threshold(in, out, (whole + 0.5) / scale, max, type);
}

} // namespace

FF_NODE(threshold) =
    ff::op("Threshold", "image")
        .doc("Compares each colour value with a level (cv::threshold): binary gives `max` above "
             "it and 0 elsewhere; binary_inv the reverse; truncate caps values at the level; "
             "to_zero keeps values above it (else 0), to_zero_inv those not above it. The level "
             "is `threshold`, or found per channel by Otsu's or the triangle method on the "
             "values rounded to 8 bits (OpenCV finds them on 8-bit samples only; exact for 8-bit "
             "images), and logged. On an 8- or 16-bit image the level is a whole sample value, as "
             "cv::threshold takes it on such samples (rounded down; a value equal to it is not above "
             "it). Gray stays gray (use Grayscale first for one level on a colour "
             "image); alpha is kept.")
        .input("image", ff::kImage, "image to threshold")
        .output("image", ff::kImage, "thresholded image")
        .param_float("threshold", 0.5, -1e6, 1e6, "the level (method fixed)")
        .param_enum("method", "fixed", "fixed|otsu|triangle", "fixed: `threshold`; otsu, triangle: found from the histogram")
        .param_enum("type", "binary", "binary|binary_inv|truncate|to_zero|to_zero_inv", "what becomes of values above and below the level")
        .param_float("max", 1.0, -1e6, 1e6, "the value above the level for binary (below it for binary_inv)")
        .execute([](ff::Node& node) {
            const int type = threshold_type(node.string("type"));
            const std::string method = node.string("method");
            const double max = node.number("max");
            const int depth = ff::nodes::source_depth(node.image("image").bits);
            ff::nodes::map_colour(node, [&](const cv::Mat& colour) {
                cv::Mat out;
                if (method == "fixed") {
                    threshold_at(colour, out, node.number("threshold"), max, type, depth);
                    return out;
                }
                std::vector<cv::Mat> planes;
                cv::split(colour, planes);
                std::string levels;
                for (cv::Mat& plane : planes) {
                    const double level = automatic_level(plane, method == "otsu" ? cv::THRESH_OTSU : cv::THRESH_TRIANGLE);
                    threshold_at(plane, plane, level, max, type, depth);
                    char text[32];
                    std::snprintf(text, sizeof text, "%s%.4f", levels.empty() ? "" : ", ", level);
                    levels += text;
                }
                node.log(method + " level" + (planes.size() > 1 ? "s " : " ") + levels);
                cv::merge(planes, out);
                return out;
            });
        });
