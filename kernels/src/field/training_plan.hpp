// The kernels of one training run and the choices they are built from, made before anything is
// allocated: a pure function of the device's features, the model, the options and the image's
// shape. The trainer builds exactly these; tests/engine/shipped_kernels.cpp lists them for devices
// it does not have.
#pragma once

#include "vulkan/device_features.hpp"
#include "encoding_state.hpp"
#include "model_layout.hpp"
#include "target_image.hpp"

#include <optional>
#include <vector>

namespace ff::engine::detail {

struct TrainingPlan {
    TrainTiling tiling;
    uint32_t groups = 0;               // the training step's persistent workgroups
    uint32_t grid_adam = 0;            // optimizer.comp's GRID_ADAM: 0 sparse, 1 eager dense, 2 lazy dense
    std::vector<float> catch_up_sums;  // lazy dense Adam's table (grid_adam 2)
    EncodingStateLayout state_layout;  // by_address as the device's buffer cap makes it
    TargetImageLayout image;
    uint32_t optimizer_params_per_group = 8; // optimizer.comp's PARAMS_PER_GROUP
    uint32_t visit_parts = 1;          // optimizer.comp's VISIT_PARTS
    KernelRequest train, optimizer, render, squared_error;
    std::optional<KernelRequest> settle;   // lazy dense Adam's settle pass
    std::optional<KernelRequest> deferred; // the deferred gradient sums' pass
    // Every kernel the run builds, in the order the trainer prepares them.
    std::vector<KernelRequest> requests() const;
};

TrainingPlan plan_training(const DeviceFeatures& device, const ModelConfig& config, const TrainOptions& options,
                           uint32_t width, uint32_t height, uint32_t source_bits);

} // namespace ff::engine::detail
