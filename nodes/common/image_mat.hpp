// ImageView <-> cv::Mat for node authors. fieldflow images are float RGB, interleaved, [0, 1];
// OpenCV's codecs and drawing speak BGR. These helpers do the conversions in one place so every
// node agrees on channel order and on how floats become 8- and 16-bit values.
#pragma once

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

namespace ff::nodes {

// The image as CV_32FC3 in RGB order. A 3-channel input is wrapped without a copy (the Mat
// shares the host's pixels: treat it as read-only); 1-channel (gray) is replicated, 2-channel
// (gray + alpha) and 4-channel (RGBA) lose their alpha. `port` names the input in errors.
cv::Mat rgb_mat(const ImageView& image, const char* port);

// The image as it is: CV_32FC1 (gray), CV_32FC3 (RGB) or CV_32FC4 (RGBA), wrapped without a copy
// (read-only, as rgb_mat's).
cv::Mat native_mat(const ImageView& image, const char* port);

// A 3-channel RGB result laid out like `like`: gray stays one channel (the mean of R, G and B, as
// a model learns gray as three equal channels), RGBA gets like's alpha, resized to the result's
// size (alpha is carried through, not learned). Other layouts: the RGB result as it is.
cv::Mat like_layout(const cv::Mat& rgb, const ImageView& like);

// Allocates output `port` and copies a CV_32FC1/3/4 Mat (gray, RGB, RGBA) into it, in bands of
// rows with a cancellation check between them (ff::Cancelled).
void output_native(Node& node, const char* port, const cv::Mat& image);

// Float [0, 1] samples as the integer depth a file of `bits` stores (8 or 16), or the floats
// themselves for 32 and 0 (unknown) -- the one quantisation writers and metrics share.
cv::Mat at_depth(const cv::Mat& float_image, uint32_t bits);

// "8-bit", "16-bit", "32-bit float" for messages and metrics.json.
std::string depth_text(uint32_t bits);

// A copy of the image as CV_32FC3 in BGR order (for OpenCV codecs and drawing).
cv::Mat bgr_mat(const ImageView& image, const char* port);

// Allocates output `port` as width x height RGB and returns a CV_32FC3 Mat over the host's
// buffer, so OpenCV functions can write their result straight into it.
cv::Mat output_mat(Node& node, const char* port, cv::Size size);

// Allocates output `port` and copies a CV_32FC3 RGB (or BGR, swapped to RGB) Mat into it.
void output_rgb(Node& node, const char* port, const cv::Mat& rgb);
void output_bgr(Node& node, const char* port, const cv::Mat& bgr);

// Float [0, 1] -> 8-bit / 16-bit, rounding to nearest and saturating (NaN becomes 0). The one
// rule used both to save images and to quantise them for metrics, so metrics computed on
// quantised values equal those an independent tool computes from the saved files.
cv::Mat to_8bit(const cv::Mat& float_image);
cv::Mat to_16bit(const cv::Mat& float_image);

// "751x563" for messages.
std::string size_text(cv::Size size);

} // namespace ff::nodes
