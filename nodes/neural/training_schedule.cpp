#include "training_schedule.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <cmath>

namespace ff::neural {

std::vector<uint32_t> default_snapshot_steps(uint32_t steps) {
    std::vector<uint32_t> out;
    for (uint64_t step = 1; step < steps; step *= 10) out.push_back(uint32_t(step));
    if (steps > 0) out.push_back(steps);
    return out;
}

std::vector<uint32_t> resolve_snapshot_steps(const std::vector<int64_t>& requested, uint32_t steps) {
    if (requested.empty()) return default_snapshot_steps(steps);
    std::vector<uint32_t> out;
    for (int64_t step : requested) {
        if (step < 0 || step > int64_t(steps))
            throw ParamError("snapshot_steps", "snapshot step " + std::to_string(step) +
                                                   " is outside 0.." + std::to_string(steps) +
                                                   " (the training steps)");
        out.push_back(uint32_t(step));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

uint32_t TrainingSchedule::next_stop(uint32_t done, uint32_t max_chunk) const {
    uint64_t stop = std::min<uint64_t>(steps, uint64_t(done) + std::max<uint32_t>(1, max_chunk));
    auto next_snapshot = std::upper_bound(snapshot_steps.begin(), snapshot_steps.end(), done);
    if (next_snapshot != snapshot_steps.end()) stop = std::min<uint64_t>(stop, *next_snapshot);
    if (eval_interval > 0) stop = std::min<uint64_t>(stop, (uint64_t(done) / eval_interval + 1) * eval_interval);
    return uint32_t(stop);
}

bool TrainingSchedule::is_snapshot(uint32_t step) const {
    return std::binary_search(snapshot_steps.begin(), snapshot_steps.end(), step);
}

bool TrainingSchedule::is_eval(uint32_t step) const {
    return step == steps || is_snapshot(step) || (eval_interval > 0 && step % eval_interval == 0);
}

uint32_t TrainingSchedule::evaluations() const {
    // Arithmetic, not a walk over the steps: a GPU run has tens of thousands of them.
    const auto on_interval = [&](uint32_t step) { return eval_interval > 0 && step % eval_interval == 0; };
    uint32_t count = eval_interval > 0 ? steps / eval_interval : 0;
    for (uint32_t step : snapshot_steps)
        count += step > 0 && step <= steps && !on_interval(step);
    if (steps > 0 && !on_interval(steps) && !is_snapshot(steps)) ++count;
    return count;
}

uint32_t chunk_size(double steps_per_second, double target_seconds, uint32_t first, uint32_t cap) {
    if (!(steps_per_second > 0) || !std::isfinite(steps_per_second))
        return std::clamp<uint32_t>(first, 1, cap);
    double steps = std::floor(steps_per_second * target_seconds);
    return uint32_t(std::clamp(steps, 1.0, double(cap)));
}

} // namespace ff::neural
