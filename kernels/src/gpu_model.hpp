// Helpers shared by the trainer, render() and the test entry points: staging transfers, a model's
// parameters on the device, and the kernels specialised for a model.
#pragma once

#include "model_layout.hpp"
#include "vk_device.hpp"

namespace ff::engine::detail {

// Copies through a temporary staging buffer (the destination / source stays device-local).
void upload(DeviceImpl& device, CommandRunner& runner, const Buffer& dst, const void* data,
            size_t bytes);
void download(DeviceImpl& device, CommandRunner& runner, const Buffer& src, void* data,
              size_t bytes);
void fill_zero(CommandRunner& runner, const std::vector<const Buffer*>& buffers);

// A model's learnable parameters in device-local buffers.
struct GpuModel {
    ModelConfig config;
    MlpLayout layout;
    Buffer mlp;  // Model::mlp
    Buffer grid; // Model::grid
    GpuModel(DeviceImpl& device, CommandRunner& runner, const Model& model);
    Model download(DeviceImpl& device, CommandRunner& runner) const;
};

// Checks a Model's vector sizes against its config; throws EngineError saying what differs.
void require_consistent(const Model& model);

// The fused training kernel for a model on this device (EXPLICIT_SAMPLES for tests).
const Kernel& train_kernel(DeviceImpl& device, const ModelConfig& config, const TrainTiling& tiling,
                           bool explicit_samples);

// Renders width x height pixel centres of the model held in `mlp` / `grid` (one dispatch) and
// returns config.output_dims floats per pixel.
std::vector<float> render_buffers(DeviceImpl& device, CommandRunner& runner,
                                  const ModelConfig& config, const Buffer& mlp, const Buffer& grid,
                                  uint32_t width, uint32_t height);

inline uint32_t div_up(uint64_t n, uint32_t d) { return uint32_t((n + d - 1) / d); }

} // namespace ff::engine::detail
