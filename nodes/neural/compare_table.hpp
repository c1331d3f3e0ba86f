// The model comparison table of CompareReport: one row per representation (PSNR, SSIM,
// parameters, train time), as Markdown and as JSON. Pure formatting: the node computes the rows.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

struct CompareRow {
    std::string name;                    // "grid+MLP", "SIREN", "splats", "bilinear"
    double psnr = 0;                     // dB, 8-bit values as saved
    double ssim = 0;
    uint64_t parameters = 0;
    std::optional<double> train_seconds; // none for the bilinear baseline
    std::optional<double> steps_per_second;
    std::string detail;                  // configuration, e.g. "6x128, omega 30"
};

// A Markdown table with a title line, the image size and one row per entry, in order.
std::string compare_markdown(const std::string& title, uint32_t width, uint32_t height,
                             const std::vector<CompareRow>& rows);

// {"image_width": .., "image_height": .., "models": [{"name", "psnr", "ssim", "parameters", ...}]}
nlohmann::json compare_json(uint32_t width, uint32_t height, const std::vector<CompareRow>& rows);

} // namespace ff::neural
