#include "cpu_budget.hpp"

#include <algorithm>

namespace ff::neural {

std::optional<std::string> fit_to_cpu(TrainParams& params, const std::string& device_type,
                                      const std::string& device_name) {
    ff::engine::TrainOptions& o = params.options;
    if (device_type != "cpu" || params.cpu_steps == 0) return std::nullopt;
    // A splat step sees the whole image: only its steps are capped.
    const bool batched = params.choice != ModelChoice::splats;
    const uint32_t steps = std::min(o.steps, params.cpu_steps);
    const uint32_t batch = batched ? std::min(o.batch, params.cpu_batch) : o.batch;
    if (steps == o.steps && batch == o.batch) return std::nullopt;
    // The work the graph asked for against what runs, in samples.
    const double ratio = double(o.steps) * o.batch / (double(steps) * batch);
    const std::string budget = batched ? "cpu_steps and cpu_batch set" : "cpu_steps sets";
    std::string message = "'" + device_name + "' is a CPU Vulkan driver: training " + std::to_string(steps) +
                          " steps" + (batched ? " at batch " + std::to_string(batch) : "") + " instead of " +
                          std::to_string(o.steps) + (batched ? " at " + std::to_string(o.batch) : "") + " (" +
                          std::to_string(int64_t(ratio + 0.5)) + "x the work; the op's " + budget +
                          " this budget; cpu_steps: 0, or --set cpu_steps=0 where the graph has that var, trains the run as given)";
    const size_t before = params.snapshot_steps.size();
    std::erase_if(params.snapshot_steps, [&](int64_t s) { return s > int64_t(steps); });
    if (params.snapshot_steps.size() != before) {
        message += "; snapshot steps past step " + std::to_string(steps) + " are left out";
        // An emptied list would mean the default, log-spaced one: keep it explicit instead.
        if (params.snapshot_steps.empty()) params.snapshot_steps.push_back(steps);
    }
    params.asked_steps = o.steps;
    params.asked_batch = o.batch;
    params.cpu_budget_note = message;
    o.steps = steps;
    o.batch = batch;
    return message;
}

} // namespace ff::neural
