// The report's words: what ran against what was asked (the CPU budget and how to undo it), what
// each baseline is and why it is a fair match, what PSNR and SSIM measure and how they are
// computed here, and timings named for what they measure. Pure: facts in, text out.
#pragma once

#include "codec_baselines.hpp"
#include "number_text.hpp"
#include "report_page.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ff::neural {

// The value at `key` of a JSON object of facts (Train's stats), or `fallback` when it is absent,
// null or of another type.
template <class T>
T fact(const nlohmann::json& facts, const char* key, T fallback) {
    auto it = facts.find(key);
    if (it == facts.end() || it->is_null()) return fallback;
    try {
        return it->get<T>();
    } catch (const nlohmann::json::exception&) {
        return fallback;
    }
}

// The budget trained against the one asked, from Train's stats (steps, batch, asked_steps,
// asked_batch, cpu_budget, device, device_type); empty without a trained step count.
std::vector<ReportNote> run_notes(const nlohmann::json& facts);

// The bilinear baseline: the grid it shrinks the image to and its value count against the
// model's parameter count (0: unknown).
ReportNote bilinear_note(uint32_t grid_width, uint32_t grid_height, uint32_t channels, uint64_t parameters);

// A codec at the model's bytes: its quality and size, or why there is none.
ReportNote codec_note(const CodecBaseline& codec, size_t budget_bytes);

// One line each on PSNR and SSIM as computed here (`computed_on`: "8-bit values, as saved").
std::vector<ReportNote> metric_notes(const std::string& computed_on);

// The training timings, each named for what it measures: device time of the steps from GPU
// timestamps where the stats have it, the training loop's wall time, setup, the node in all.
std::vector<ReportRow> timing_rows(const nlohmann::json& facts);

} // namespace ff::neural
