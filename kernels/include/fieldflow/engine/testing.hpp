// Test-only entry points into the engine's kernels: run the fused forward + backward once on given
// samples (no optimizer step), draw the sampler's pixel indices. For comparisons against a CPU
// reference; not part of the stable API.
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <cstdint>
#include <vector>

namespace ff::engine::testing {

struct ForwardBackward {
    double loss = 0;              // mean over samples and output channels of the squared error
    std::vector<float> outputs;   // samples x output_dims
    std::vector<float> grad_mlp;  // dLoss/dModel::mlp (same padded layout)
    std::vector<float> grad_grid; // dLoss/dModel::grid
};

// uv: 2 floats per sample; targets: output_dims floats per sample. Runs train_step.comp with
// explicit samples, then sums the per-workgroup partial gradients on the host.
ForwardBackward forward_backward(const Device& device, const Model& model,
                                 const std::vector<float>& uv, const std::vector<float>& targets);

// The pixel index (y * width + x) each of `batch` samples draws at training step `step`.
std::vector<uint32_t> sample_indices(const Device& device, uint64_t seed, uint32_t step,
                                     uint32_t batch, uint32_t width, uint32_t height);

// Samples per workgroup and whether weights live in shared memory, for this model on this device.
struct Tiling {
    uint32_t tile = 0;
    bool weights_in_shared = false;
};
Tiling train_tiling(const Device& device, const ModelConfig& config);

} // namespace ff::engine::testing
