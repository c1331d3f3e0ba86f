// Images the neural nodes make: engine renders as cv::Mats, the feature-grid picture, PNG files.
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ff::neural {

// The learned grid as a picture at grid resolution: channels 0, 1, 2 as R, G, B (a 1- or
// 2-channel grid repeats its last channel), min-max normalised over the whole frame so every
// snapshot uses the full range. CV_32FC3 RGB in [0, 1].
cv::Mat feature_image(const ff::engine::Model& model);

// The RGB float image as 8-bit PNG bytes (rounded like WriteImage: ff::nodes::to_8bit).
std::vector<unsigned char> png_bytes(const cv::Mat& rgb);

// The same bytes as a string (a file's contents).
std::string png_text(const cv::Mat& rgb);

} // namespace ff::neural
