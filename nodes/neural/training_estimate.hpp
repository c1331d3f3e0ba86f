// What a Train node's work will cost, said before it runs (`fieldflow check`, dry runs, and the
// run's log before training starts), so that no training silently takes hours: steps x batch
// after the CPU budget, and a rough time on the device from a table of measured rates, of the
// training steps and the full-image evaluations the run makes.
#pragma once

#include "train_params.hpp"

#include <fieldflow/engine/engine.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace ff::neural {

// A time above this on a CPU driver, with no CPU budget taken, is a warning, not a note.
inline constexpr double kLongCpuTrainingSeconds = 600;

struct TrainingEstimate {
    std::string text;     // "trains 2,000 steps x 2,048 pixels (4.1 M samples); about 41 s on llvmpipe ..."
    double seconds = -1;  // < 0: unknown (no device, or the image's size not known yet)
    bool long_on_cpu = false; // over kLongCpuTrainingSeconds on a CPU driver, uncapped
};

// The device `selector` ("auto", "cpu", an index) would open, by Device::open's rule, from the
// device list (read once a process); nullopt when none would.
std::optional<ff::engine::DeviceInfo> device_for(const std::string& selector);

// Seconds `params` (already fitted to the device's CPU budget) take on `device`, from the table of
// measured rates: `fixed` for a grid or SIREN model's training steps, plus `per_megapixel` for each
// megapixel of the image (the full-image evaluations; all of a splat model's work).
struct TrainingSeconds {
    double fixed = 0;
    double per_megapixel = 0;
    double for_pixels(uint64_t pixels) const;
};
TrainingSeconds estimated_training_time(const TrainParams& params, const ff::engine::DeviceInfo& device);

// The full-image evaluations a run of `params` (fitted to the CPU budget) makes: one at each
// snapshot step, every eval_interval steps and at the last step (training_schedule.hpp).
uint32_t estimated_evaluations(const TrainParams& params);

// The whole estimate for `params` as given (before the CPU budget, which it applies itself).
TrainingEstimate estimate_training(const TrainParams& params,
                                   const std::optional<ff::engine::DeviceInfo>& device,
                                   uint64_t pixels);

// "41 s", "3 min", "1 h 50 min"
std::string rough_duration(double seconds);

} // namespace ff::neural
