// PSNR from an MSE on the [0, 1] scale, with cv::PSNR's guard so a perfect match stays finite
// (and JSON-representable) instead of infinite.
#pragma once

#include <cfloat>
#include <cmath>

namespace ff::neural {

inline double psnr_from_mse(double mse) {
    return 20.0 * std::log10(1.0 / (std::sqrt(std::max(mse, 0.0)) + DBL_EPSILON));
}

} // namespace ff::neural
