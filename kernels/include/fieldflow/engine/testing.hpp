// Test-only entry points into the engine's kernels: run the fused forward + backward once on given
// samples (no optimizer step), draw the sampler's pixel indices. For comparisons against a CPU
// reference; not part of the stable API.
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace ff::engine::testing {

struct ForwardBackward {
    double loss = 0;              // mean over samples and output channels of the squared error
    std::vector<float> outputs;   // samples x output_dims
    std::vector<float> grad_mlp;  // dLoss/dModel::mlp (same padded layout)
    std::vector<float> grad_encoding; // dLoss/dModel::encoding_params
};

// The sums of the encoding's most-read cells that forward_backward may take: in the training
// workgroup's shared memory (local) and in a pass of their own after it (deferred), from
// `min_hits` reads of a cell a workgroup (0: every cell that fits; unset: the engine's choice for
// training). The deferred sums' inputs are fp16 (encoding_deferred_inputs.glsl).
struct GradientSums {
    std::optional<double> min_hits;
    bool local = true;
    bool deferred = true;
};
// uv: 2 floats per sample; targets: output_dims floats per sample. Runs train_step.comp with
// explicit samples (and the deferred sums' pass, if it takes any cells), then sums the
// per-workgroup partial gradients on the host. max_groups > 0 caps the workgroups, so each loops
// over several tiles as in training at large batches. `kernels` fixes kernel choices as
// TrainOptions::kernels does for training.
ForwardBackward forward_backward(const Device& device, const Model& model,
                                 const std::vector<float>& uv, const std::vector<float>& targets,
                                 uint32_t max_groups = 0, GradientSums sums = {},
                                 const KernelOverrides& kernels = {});
// The leading encoding cells whose gradients forward_backward summed with these settings, locally
// and deferred (0: none; the device, the kernel path or the encoding has no such sums).
struct SummedCells {
    uint32_t local = 0, deferred = 0;
    uint32_t deferred_sets = 0; // the sets the pass sums the deferred cells in, one after another
};
SummedCells gradient_sum_cells(const Device& device, const Model& model, uint32_t samples, uint32_t max_groups = 0,
                               GradientSums sums = {}, const KernelOverrides& kernels = {});

// The pixel index (y * width + x) each of `batch` samples draws at training step `step` when
// `config` trains on a width x height image (the order of the samples depends on the encoding's
// cells: kernels/shaders/sampling.glsl).
std::vector<uint32_t> sample_indices(const Device& device, const ModelConfig& config, uint64_t seed, uint32_t step,
                                     uint32_t batch, uint32_t width, uint32_t height,
                                     const KernelOverrides& kernels = {});

// Samples per workgroup and whether weights live in shared memory, for this model on this device.
struct Tiling {
    uint32_t tile = 0;
    bool weights_in_shared = false;
};
Tiling train_tiling(const Device& device, const ModelConfig& config, const KernelOverrides& kernels = {});

// The encoding's double-precision CPU reference (its descriptor's): the MLP inputs at (u, v), and
// the accumulation of dLoss/dparams given dLoss/dx for the encoding's gradient inputs.
std::vector<double> reference_encode(const ModelConfig& config, const std::vector<double>& params,
                                     double u, double v);
void reference_encode_backward(const ModelConfig& config, double u, double v,
                               const std::vector<double>& dx, std::vector<double>& dparams);
// How many leading MLP inputs carry gradients into the encoding's parameters.
uint32_t encoding_gradient_inputs(const ModelConfig& config);

} // namespace ff::engine::testing
