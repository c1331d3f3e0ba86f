// CPU reference (double) of the splat rasteriser: the naive loop over every splat for every pixel,
// with the same 3-sigma cutoff as the GPU kernels, its full-image MSE and the analytic gradients.
#pragma once

#include <cstdint>
#include <vector>

namespace ff::engine::test {

struct SplatReference {
    double loss = 0;           // mean over pixels and channels of (blend - target)^2
    std::vector<double> rgb;   // unclamped blend, width * height * 3
    std::vector<double> grads; // d loss / d params
};

// params: 8 doubles per splat (x, y, l11, l21, l22, r, g, b); target: width * height * 3.
SplatReference splat_reference(const std::vector<double>& params, uint32_t width, uint32_t height,
                               const std::vector<double>& target);

} // namespace ff::engine::test
