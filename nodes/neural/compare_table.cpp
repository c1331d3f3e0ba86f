#include "compare_table.hpp"

#include "number_text.hpp"

#include <cstdio>

namespace ff::neural {

namespace {

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::optional<double> rate(const CompareRow& r) {
    const std::optional<double> seconds = r.device_seconds ? r.device_seconds : r.train_seconds;
    if (!r.steps || !seconds || *seconds <= 0) return std::nullopt;
    return double(*r.steps) / *seconds;
}

template <class T, class F>
std::string or_dash(const std::optional<T>& value, F text) {
    return value ? text(*value) : std::string("-");
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

} // namespace

std::string compare_markdown(const std::string& title, uint32_t width, uint32_t height,
                             const std::vector<CompareRow>& rows) {
    std::string out = "## " + title + "\n\n";
    out += "Image " + std::to_string(width) + "x" + std::to_string(height) +
           "; PSNR and SSIM on 8-bit values against the original. Device time: the training "
           "steps' time on the device from timestamps (on a CPU driver, models training side "
           "by side share its cores, and it); wall time: the training loop's, which models "
           "training side by side share; steps/s from the device time where there is one.\n\n";
    out += "| Model | PSNR (dB) | SSIM | Parameters | Bytes | Device time (s) | Wall time (s) | Steps/s | Configuration |\n";
    out += "|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const CompareRow& r : rows) {
        out += "| " + r.name + " | " + fixed(r.psnr, 2) + " | " + fixed(r.ssim, 4) + " | " +
               (r.parameters ? std::to_string(r.parameters) : std::string("-")) + " | " +
               or_dash(r.bytes, [](uint64_t b) { return std::to_string(b); }) + " | " +
               or_dash(r.device_seconds, [](double s) { return fixed(s, 3); }) + " | " +
               or_dash(r.train_seconds, [](double s) { return fixed(s, 2); }) + " | " +
               or_dash(rate(r), rate_text) + " | " + r.detail + " |\n";
    }
    return out;
}

std::string compare_csv(const std::vector<CompareRow>& rows) {
    std::string out = "model,psnr_db,ssim,parameters,bytes,device_seconds,wall_seconds,steps_per_second,configuration\n";
    auto number = [](const auto& value, int digits) { return value ? fixed(double(*value), digits) : std::string(); };
    for (const CompareRow& r : rows)
        out += csv_field(r.name) + "," + fixed(r.psnr, 4) + "," + fixed(r.ssim, 6) + "," +
               (r.parameters ? std::to_string(r.parameters) : std::string()) + "," +
               (r.bytes ? std::to_string(*r.bytes) : std::string()) + "," + number(r.device_seconds, 4) +
               "," + number(r.train_seconds, 4) + "," + number(rate(r), 4) + "," + csv_field(r.detail) + "\n";
    return out;
}

nlohmann::json compare_json(uint32_t width, uint32_t height, const std::vector<CompareRow>& rows) {
    nlohmann::json models = nlohmann::json::array();
    auto optional = [](const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(); };
    for (const CompareRow& r : rows) {
        nlohmann::json m = {{"name", r.name}, {"psnr", r.psnr}, {"ssim", r.ssim},
                            {"parameters", r.parameters}, {"configuration", r.detail}};
        m["bytes"] = optional(r.bytes);
        m["device_seconds"] = optional(r.device_seconds);
        m["train_seconds"] = optional(r.train_seconds);
        m["steps"] = optional(r.steps);
        m["steps_per_second"] = optional(rate(r));
        models.push_back(std::move(m));
    }
    return {{"image_width", width}, {"image_height", height}, {"models", std::move(models)}};
}

} // namespace ff::neural
