// The model comparison table of CompareReport: one row per representation (PSNR, SSIM,
// parameters, file bytes, device and wall time), as Markdown, CSV and JSON. Pure formatting: the
// node computes the rows.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

struct CompareRow {
    std::string name;                     // "grid+MLP", "SIREN", "splats", "bilinear", "JPEG", ...
    double psnr = 0;                      // dB, 8-bit values as saved
    double ssim = 0;
    uint64_t parameters = 0;              // 0 for a codec (none to count)
    std::optional<uint64_t> bytes;        // the model file's or the codec file's size
    std::optional<double> device_seconds; // the steps' device time from GPU timestamps
    std::optional<double> train_seconds;  // the training loop's wall time
    std::optional<uint64_t> steps;
    std::string detail;                   // configuration, e.g. "6x128, omega 30"
};

// A Markdown table with a title line, the image size, what the timings mean and one row per
// entry, in order.
std::string compare_markdown(const std::string& title, uint32_t width, uint32_t height,
                             const std::vector<CompareRow>& rows);

// The same rows as CSV (a header line, then one line per row; fields quoted where needed).
std::string compare_csv(const std::vector<CompareRow>& rows);

// {"image_width": .., "image_height": .., "models": [{"name", "psnr", "ssim", "parameters", ...}]}
nlohmann::json compare_json(uint32_t width, uint32_t height, const std::vector<CompareRow>& rows);

} // namespace ff::neural
