#include "compare_table.hpp"

#include <cstdio>

namespace ff::neural {

namespace {
std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}
} // namespace

std::string compare_markdown(const std::string& title, uint32_t width, uint32_t height,
                             const std::vector<CompareRow>& rows) {
    std::string out = "## " + title + "\n\n";
    out += "Image " + std::to_string(width) + "x" + std::to_string(height) +
           "; PSNR and SSIM on 8-bit values against the original.\n\n";
    out += "| Model | PSNR (dB) | SSIM | Parameters | Train time (s) | Steps/s | Configuration |\n";
    out += "|---|---:|---:|---:|---:|---:|---|\n";
    for (const CompareRow& r : rows) {
        out += "| " + r.name + " | " + fixed(r.psnr, 2) + " | " + fixed(r.ssim, 4) + " | " +
               std::to_string(r.parameters) + " | " +
               (r.train_seconds ? fixed(*r.train_seconds, 2) : std::string("-")) + " | " +
               (r.steps_per_second ? fixed(*r.steps_per_second, 0) : std::string("-")) + " | " +
               r.detail + " |\n";
    }
    return out;
}

nlohmann::json compare_json(uint32_t width, uint32_t height, const std::vector<CompareRow>& rows) {
    nlohmann::json models = nlohmann::json::array();
    for (const CompareRow& r : rows) {
        nlohmann::json m = {{"name", r.name}, {"psnr", r.psnr}, {"ssim", r.ssim},
                            {"parameters", r.parameters}, {"configuration", r.detail}};
        m["train_seconds"] = r.train_seconds ? nlohmann::json(*r.train_seconds) : nlohmann::json();
        m["steps_per_second"] =
            r.steps_per_second ? nlohmann::json(*r.steps_per_second) : nlohmann::json();
        models.push_back(std::move(m));
    }
    return {{"image_width", width}, {"image_height", height}, {"models", std::move(models)}};
}

} // namespace ff::neural
