#include "report_notes.hpp"

#include <cstdio>

namespace ff::neural {

namespace {

using nlohmann::json;

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

} // namespace

std::vector<ReportNote> run_notes(const json& facts) {
    const uint64_t steps = fact<uint64_t>(facts, "steps", 0), batch = fact<uint64_t>(facts, "batch", 0);
    if (steps == 0) return {};
    const uint64_t asked_steps = fact<uint64_t>(facts, "asked_steps", steps);
    const uint64_t asked_batch = fact<uint64_t>(facts, "asked_batch", batch);
    const std::string device = fact<std::string>(facts, "device", "");
    const std::string type = fact<std::string>(facts, "device_type", "");
    std::string text = grouped(steps) + " steps" + (batch ? " at batch " + grouped(batch) : std::string()) +
                       (device.empty() ? std::string() : " on " + device) +
                       (type.empty() ? std::string() : " (" + type + ")") + ". ";
    if (asked_steps != steps || asked_batch != batch) {
        const double ratio = double(asked_steps) * double(std::max<uint64_t>(asked_batch, 1)) /
                             (double(steps) * double(std::max<uint64_t>(batch, 1)));
        text += "The graph asked for " + grouped(asked_steps) + " steps at batch " + grouped(asked_batch) +
                ": on a CPU Vulkan driver the CPU budget (the graph's cpu_steps and cpu_batch) cut the run "
                "to 1/" + fixed(ratio, 0) + " of its samples, so these results are not the full run's. "
                "Add --set cpu_steps=0 to the command to train the run as given.";
    } else {
        text += "The run trained the budget the graph asked for.";
    }
    return {{"Trained:", text}};
}

ReportNote bilinear_note(uint32_t grid_width, uint32_t grid_height, uint32_t channels, uint64_t parameters) {
    const uint64_t values = uint64_t(grid_width) * grid_height * channels;
    std::string text = "the ground truth shrunk (area average) to " + std::to_string(grid_width) + "x" +
                       std::to_string(grid_height) + " pixels, " + grouped(values) + " values, and scaled back "
                       "up bilinearly: the plain grid that stores ";
    if (parameters > 0) {
        text += "about as many numbers as the model has parameters (" + grouped(parameters) + ", " +
                fixed(100.0 * double(values) / double(parameters), 0) + "%), so it shows what the same "
                "count of stored values gives without learning.";
    } else {
        text += "as many numbers as the feature grid a model of this image learns.";
    }
    return {"Bilinear:", text};
}

ReportNote codec_note(const CodecBaseline& codec, size_t budget_bytes) {
    const std::string name = codec_name(codec.codec);
    if (!codec.unavailable.empty())
        return {name + ":", "no baseline at the model's " + grouped(budget_bytes) + " bytes: " + codec.unavailable + "."};
    return {name + ":", "the ground truth saved as " + name + " at quality " + std::to_string(codec.chosen.quality) +
                            " (" + grouped(codec.chosen.bytes) + " bytes), the highest quality whose file "
                            "is no larger than the model file (" + grouped(budget_bytes) +
                            " bytes), found by search over qualities 1-100, then decoded and scored "
                            "like the others."};
}

std::vector<ReportNote> metric_notes(const std::string& computed_on) {
    return {
        {"PSNR", "(peak signal-to-noise ratio, dB; higher is better): 10 log10(peak^2 / MSE), the mean "
                 "squared error over every pixel and R, G, B, on " + computed_on +
                 " (peak 255 for 8-bit). +3 dB halves the squared error; it weighs every error alike."},
        {"SSIM", "(structural similarity, Wang et al. 2004; 1 is identical): local means, contrasts and "
                 "correlation in an 11x11 Gaussian window (sigma 1.5, K1 0.01, K2 0.03), per channel on "
                 "the same values, averaged over the windows inside the image and the channels. It "
                 "follows visible structure more than PSNR does."},
    };
}

std::vector<ReportRow> timing_rows(const json& facts) {
    std::vector<ReportRow> rows;
    const uint64_t steps = fact<uint64_t>(facts, "steps", 0);
    const double wall = fact<double>(facts, "train_seconds", 0.0);
    const double gpu = fact<double>(facts, "gpu_seconds", 0.0);
    const bool cpu = fact<std::string>(facts, "device_type", "") == "cpu";
    if (gpu > 0) {
        rows.push_back({cpu ? "Device time of the steps (timestamps; a CPU driver: the CPU's time running them)"
                            : "Device time of the steps (GPU timestamps)",
                        fixed(gpu, 3) + " s (" + rate_text(steps / gpu) + " steps/s)"});
    }
    if (wall > 0)
        rows.push_back({"Training loop, wall time", fixed(wall, 2) + " s (" + rate_text(steps / wall) + " steps/s)"});
    if (facts.contains("setup_seconds"))
        rows.push_back({"Setup, wall time (pipelines, upload)", fixed(fact<double>(facts, "setup_seconds", 0), 2) + " s"});
    if (facts.contains("device_open_seconds"))
        rows.push_back({"Opening the device and reading the image, wall time",
                        fixed(fact<double>(facts, "device_open_seconds", 0), 2) + " s"});
    if (facts.contains("wall_seconds"))
        rows.push_back({"Train node in all, wall time (with evaluations and snapshots)",
                        fixed(fact<double>(facts, "wall_seconds", 0), 2) + " s"});
    return rows;
}

} // namespace ff::neural
