// Per-pixel error maps: how far an image is from its reference at each pixel, and that error as a
// colour picture on a fixed scale, so two maps (bilinear and learned against the same truth) can
// be compared by eye. Used by the ErrorMap node and the Report.
#pragma once

#include <opencv2/core.hpp>

#include <array>
#include <vector>

namespace ff::metrics {

// |image - reference| averaged over the channels, on the [0, 1] scale (8-bit values divided by
// 255): CV_32FC1 of the images' size. Inputs as for mse() in image_metrics.hpp.
cv::Mat absolute_error(const cv::Mat& reference, const cv::Mat& image);

// The error value below which `fraction` of the pixels of all `errors` lie (a histogram of 4096
// bins over [0, 1], so within 1/4096): a colour scale that a few extreme pixels do not flatten.
// Never below 1/255, so a near-perfect image does not show its rounding as full-scale error.
float error_quantile(const std::vector<cv::Mat>& errors, double fraction);

// The error as 8-bit RGB through the "inferno" colour map (black, purple, orange, pale yellow):
// 0 is black, `scale` and above are the brightest colour. CV_8UC3, RGB order.
cv::Mat colour_error(const cv::Mat& error, float scale);

// `count` colours evenly along the scale, from 0 to `scale` (for a legend). RGB.
std::vector<std::array<unsigned char, 3>> error_colour_steps(int count);

} // namespace ff::metrics
