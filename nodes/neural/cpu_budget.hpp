// What a training op trains on a CPU Vulkan driver (Mesa's lavapipe): the main job's defaults
// (40,000 steps at batch 16,384) take over an hour there, and a short run loses to bilinear, so
// each training op takes a budget on CPU drivers instead (params cpu_steps, cpu_batch; defaults
// kGridCpuBudget and its siblings in train_params.hpp), saying so; cpu_steps 0 trains as given.
#pragma once

#include "train_params.hpp"

#include <optional>
#include <string>

namespace ff::neural {

// Caps params' steps and batch at cpu_steps and cpu_batch when the device is a CPU driver
// (device_type "cpu") and cpu_steps is set (> 0; a splat model's batch is left), dropping
// requested snapshot steps past the new end, and keeping what was asked in params.asked_steps, asked_batch and cpu_budget_note (for the
// stats). Returns the warning to log when anything changed, nullopt otherwise.
std::optional<std::string> fit_to_cpu(TrainParams& params, const std::string& device_type,
                                      const std::string& device_name);

} // namespace ff::neural
