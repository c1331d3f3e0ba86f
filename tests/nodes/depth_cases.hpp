// Test pictures at each sample depth an image op meets, and the images the host hands an op for
// them: an 8-bit file's samples arrive as floats k / 255 with bits 8, a 16-bit file's as
// k / 65535 with bits 16, a float file's as they are with bits 32. A test runs OpenCV directly
// on the samples and compares with the op's output brought back to the same depth.
#pragma once

#include "fake_host.hpp"

#include <opencv2/core.hpp>

#include <functional>
#include <string>

namespace ff::test {

struct DepthCase {
    int depth; // CV_8U, CV_16U, CV_32F
    uint32_t bits;
    const char* name;
};
inline constexpr DepthCase kDepths[] = {{CV_8U, 8, "8-bit"}, {CV_16U, 16, "16-bit"}, {CV_32F, 32, "float"}};

// How far an op's output, at an integer depth, may be from OpenCV's result on the samples: one
// level, as OpenCV's integer paths round once per call (and warps weigh neighbours in fixed
// point) where the ops compute on floats and round once at the end. Floats agree to float
// precision.
inline double tolerance(int depth) { return depth == CV_32F ? 1e-5 : 1.0; }

// test_picture with 1 (its luma), 3 or 4 channels (RGB + an alpha ramp), as samples of `depth`.
cv::Mat picture_at(int width, int height, int channels, int depth, unsigned seed = 1);

// The image the host hands an op for these samples (floats on [0, 1], bits of their depth).
Image image_of(const cv::Mat& samples);

// An op's float output as samples of `depth` (rounded and saturated; floats as they are).
cv::Mat samples_at(const cv::Mat& floats, int depth);

// The value of a full-scale sample: 255, 65535, or 1 for floats.
double full_scale(int depth);

// Largest absolute difference, in sample units, of two Mats of one size, depth and channel count.
double max_sample_diff(const cv::Mat& a, const cv::Mat& b);

// Runs `op` on the samples (input "image", params from `setup`), expects success and returns its
// output "image" as the op wrote it (floats).
cv::Mat run_op(const char* op, const cv::Mat& samples, const std::function<void(FakeRun&)>& setup = {});
// The same output as samples of the input's depth.
cv::Mat run_at_depth(const char* op, const cv::Mat& samples, const std::function<void(FakeRun&)>& setup = {});

// `f` (OpenCV's computation) applied to the colour channels of `image`, its alpha put back as it
// was: what an op that keeps alpha should give.
cv::Mat on_colour(const cv::Mat& image, const std::function<cv::Mat(const cv::Mat&)>& f);

// "8-bit RGBA" for failure messages.
std::string case_name(const DepthCase& depth, int channels);

} // namespace ff::test
