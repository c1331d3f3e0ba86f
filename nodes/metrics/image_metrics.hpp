// Image quality metrics: MSE, PSNR and SSIM of an image against a reference.
//
// Inputs are cv::Mats of equal size and type with 1 to 4 channels: 8-bit (peak value 255), 16-bit
// (peak 65535) or float (CV_32F / CV_64F, peak value 1). Channels are weighted equally.
//  - mse:  mean squared error over all values, on the [0, 1] scale (8-bit values divided by 255).
//  - psnr: 20 log10(peak / (sqrt(mean squared error) + DBL_EPSILON)) dB, the formula of cv::PSNR,
//          so identical images give a large finite number (~361 dB for 8-bit) instead of infinity;
//          `identical` says so, and JSON writers put null there instead of that number.
//  - ssim: Wang, Bovik, Sheikh & Simoncelli (2004): 11x11 Gaussian window, sigma 1.5,
//          K1 = 0.01, K2 = 0.03, dynamic range = peak; computed per channel and averaged. The
//          mean is taken over the "valid" windows (those inside the image, as Wang's reference
//          code does). Images under 11 pixels on a side use every pixel, with mirrored borders.
#pragma once

#include <opencv2/core.hpp>

#include <cstddef>
#include <functional>

namespace ff::metrics {

struct ImageMetrics {
    double psnr = 0;
    double ssim = 0;
    double mse = 0;
    bool identical = false; // mse == 0: PSNR is infinite (psnr holds cv::PSNR's finite stand-in)
};

double mse(const cv::Mat& reference, const cv::Mat& image);
double psnr(const cv::Mat& reference, const cv::Mat& image);
// Called between parts of a long computation with the parts done and their total, for progress
// and cancellation: it may throw to stop the work (the exception propagates to the caller).
using WorkCheck = std::function<void(size_t done, size_t total)>;

// SSIM runs in parallel tiles (cv::parallel_for_), with `check` between batches of ~1 M pixels.
double ssim(const cv::Mat& reference, const cv::Mat& image, const WorkCheck& check = {});

// All three. With `bits` 8 or 16, float images in [0, 1] are first rounded to that depth exactly as
// WriteImage saves them (ff::nodes::at_depth), so the numbers equal what any tool computes from
// the saved files; with 0 or 32 they are computed on the float values (peak 1). `check` is
// called between SSIM's tiles (progress, interrupts), and with (0, 1) between the whole-image
// passes before them (quantising, MSE).
ImageMetrics compare(const cv::Mat& reference, const cv::Mat& image, uint32_t bits = 8,
                     const WorkCheck& check = {});

// The depth a source of `bits` (ff_image.bits; 0 unknown) is scored at: its own, 8 when unknown.
uint32_t metrics_bits(uint32_t source_bits);

} // namespace ff::metrics
