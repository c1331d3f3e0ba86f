// A text label for a picture strip: white on dark gray, anti-aliased, fitted to its band.
#pragma once

#include <opencv2/core.hpp>

#include <string>

namespace ff::nodes {

// The label as an 8-bit BGR band `width` x `band_height` (anti-aliased text needs 8-bit images in
// OpenCV), the text scaled to fit both ways.
cv::Mat label_band(const std::string& text, int width, int band_height);

} // namespace ff::nodes
