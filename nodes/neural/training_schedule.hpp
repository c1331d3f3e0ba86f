// When Train stops between engine calls: at snapshot steps, at evaluation steps, and often enough
// to report progress and notice cancellation. Pure arithmetic, unit-tested.
#pragma once

#include <cstdint>
#include <vector>

namespace ff::neural {

// 1, 10, 100, 1000, ... below `steps`, then `steps` itself (log-spaced, like the seed's table).
std::vector<uint32_t> default_snapshot_steps(uint32_t steps);

// The requested steps sorted and de-duplicated, or the default when `requested` is empty. Step 0
// means "before training". Throws ff::ParamError("snapshot_steps") for a step above `steps`.
std::vector<uint32_t> resolve_snapshot_steps(const std::vector<int64_t>& requested, uint32_t steps);

struct TrainingSchedule {
    uint32_t steps = 0;
    std::vector<uint32_t> snapshot_steps; // sorted, each <= steps
    uint32_t eval_interval = 0;           // 0: evaluate only at snapshots and at the end

    // The next step to stop at after `done`, running at most `max_chunk` steps.
    uint32_t next_stop(uint32_t done, uint32_t max_chunk) const;
    bool is_snapshot(uint32_t step) const;
    // Full-image PSNR is measured here: eval steps, snapshots, and the last step.
    bool is_eval(uint32_t step) const;
    // How many steps of 1..steps are eval steps: the full-image evaluations a run from the start
    // makes (step 0 is never one: a snapshot there renders but measures nothing).
    uint32_t evaluations() const;
};

// Steps per engine call so that one call takes about `target_seconds` at the measured rate,
// between 1 and `cap` (the first call, with no rate yet, runs `first`).
uint32_t chunk_size(double steps_per_second, double target_seconds, uint32_t first, uint32_t cap);

} // namespace ff::neural
