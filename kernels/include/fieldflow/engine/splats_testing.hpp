// Test-only entry point into the splat rasteriser: one forward + loss + backward pass over given
// splats and target, no optimizer step. For comparisons against a CPU reference; not part of the
// stable API.
#pragma once

#include "fieldflow/engine/splats.hpp"

#include <vector>

namespace ff::engine::testing {

struct SplatForwardBackward {
    double loss = 0;          // full-image MSE (mean over pixels and RGB channels)
    std::vector<float> rgb;   // the unclamped blend, width * height * 3
    std::vector<float> grads; // d loss / d SplatModel::params
    uint64_t pairs = 0;       // (tile, splat) pairs the binning emitted
};

// `target` must have the model's width and height.
SplatForwardBackward splat_forward_backward(const Device& device, const SplatModel& model,
                                            const ImageData& target);

} // namespace ff::engine::testing
