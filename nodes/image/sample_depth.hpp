// How the image ops meet OpenCV's depths and channel layouts.
//
// Ops compute on the floats wherever their OpenCV function takes floats, so a chain of ops keeps
// full precision. A few OpenCV functions take integer samples only (equalizeHist, CLAHE, Canny,
// medianBlur above 5x5, fastNlMeans): these see the image at its source file's depth, 8-bit
// values for an 8-bit source (exact: its floats are k / 255) and 16-bit for a 16-bit one.
#pragma once

#include "common/cancellable_call.hpp"
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace ff::nodes {

// CV_8U for an 8-bit source, CV_16U for 16-bit, CV_32F for float and unknown.
int source_depth(uint32_t bits);

// "8-bit", "16-bit" or "float", for messages.
std::string depth_name(int depth);

// Float [0, 1] samples at `depth`: rounded and saturated to CV_8U / CV_16U as WriteImage stores
// them, or the floats themselves for CV_32F.
cv::Mat to_sample_depth(const cv::Mat& floats, int depth);

// Samples of any of those depths back to float [0, 1] (8-bit / 255, 16-bit / 65535).
cv::Mat to_unit_float(const cv::Mat& samples);

// The value of a full-scale sample at `depth`: 255, 65535, or 1 for floats.
double full_scale(int depth);

// An image's colour channels (gray or RGB) and its alpha (the 4th channel of RGBA; empty
// otherwise), so tone and colour ops leave alpha as it is.
struct ColourAlpha {
    cv::Mat colour;
    cv::Mat alpha;
};
ColourAlpha split_alpha(const cv::Mat& image);
// colour with alpha appended as the last channel; colour alone when alpha is empty.
cv::Mat join_alpha(const cv::Mat& colour, const cv::Mat& alpha);

// The channels' names for JSON and messages: gray; gray, alpha; red, green, blue; ... alpha.
std::vector<std::string> channel_names(int channels);

// A mask input as one float channel of weights: gray as it is, colour by its luma (its alpha
// ignored).
cv::Mat mask_weights(const ImageView& view, const char* port);

// base + (top - base) x weights: `weights` one float channel of base's size, base and top float
// images of one layout.
cv::Mat mix(const cv::Mat& base, const cv::Mat& top, const cv::Mat& weights);

// The shape of most tone ops: input `image` as it is (gray, RGB or RGBA), `colour_op` applied to
// its colour channels (float, 1 or 3 channels), alpha carried through, output `image`.
template <class ColourOp>
void map_colour(Node& node, ColourOp colour_op) {
    const ColourAlpha parts = split_alpha(native_mat(node.image("image"), "image"));
    output_native(node, "image", join_alpha(colour_op(parts.colour), parts.alpha));
}

// Throws ParamError naming `upper` unless float param `upper` is above float param `lower`
// (`equal_allowed`: not below it): "white (0.2) must be above black (0.5)".
void check_order(Node& node, const char* lower, const char* upper, bool equal_allowed);

// `filter(copy of image)` on a thread of its own (call_cancellable), so the node answers a cancel
// within a moment however long OpenCV takes (non-local means, large kernels, many iterations).
// `filter` must own what it reads: capture by value.
template <class Filter>
cv::Mat cancellable_filter(const Node& node, const cv::Mat& image, const char* detail, Filter filter) {
    cv::Mat owned = image.clone(); // the input may be the host's buffer, gone once the node returns
    return call_cancellable_result(
        node, [owned, filter] { return cv::Mat(filter(owned)); }, [&node, detail](double) { node.progress(0, 0, detail); });
}

// Numbers separated by commas and/or spaces ("1, 0, 10", "0.5 0.5"); throws ParamError naming
// `param` for anything else.
std::vector<double> parse_numbers(const std::string& text, const char* param);

} // namespace ff::nodes
