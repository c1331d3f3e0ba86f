#include "training_estimate.hpp"

#include "cpu_budget.hpp"
#include "number_text.hpp"

#include <cmath>
#include <cstdio>
#include <mutex>
#include <thread>

namespace ff::neural {
namespace {

namespace fe = ff::engine;

// Measured rates, in samples a second. On a CPU driver (lavapipe spreads a dispatch over every
// core) per hardware thread, from the 2-core development machine: the lake model 2,000 steps at
// batch 2,048 in 41 s (bench/RESULTS.md, "The CPU driver (lavapipe)"); the 16x2-level hash grid
// 43 ms a step at 2,048; the 128x6 SIREN 0.05-0.1 steps a second at 16,384. On a GPU, the H100's
// portable kernels (52.7 us a step at 16,384; bench/archive/RESULTS.md, "subgroups a workgroup");
// other GPUs differ, so the figure is rough by design.
constexpr double kDenseCpuPerThread = 50000;
constexpr double kHashCpuPerThread = 24000;
constexpr double kSirenCpuPerThread = 600; // 128 wide, 6 hidden layers; cost ~ width^2 x layers
constexpr double kGridGpu = 3.1e8;
constexpr double kSirenGpu = 3.1e8 * kSirenCpuPerThread / kDenseCpuPerThread;
// A splat step renders and differentiates the whole image: thread-seconds (CPU) or seconds (GPU)
// a step per megapixel at 10,000 splats.
constexpr double kSplatCpuThreadSecondsPerMegapixel = 1.0;
constexpr double kSplatGpuSecondsPerMegapixel = 0.005;

bool is_cpu(const fe::DeviceInfo& d) { return d.type == "cpu"; }

double threads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::string samples_text(double samples) {
    char buffer[32];
    if (samples >= 1e9) std::snprintf(buffer, sizeof buffer, "%.1f G", samples / 1e9);
    else if (samples >= 1e6) std::snprintf(buffer, sizeof buffer, "%.1f M", samples / 1e6);
    else std::snprintf(buffer, sizeof buffer, "%.0f k", samples / 1e3);
    return buffer;
}

std::string work_text(const TrainParams& p) {
    const fe::TrainOptions& o = p.options;
    if (p.choice == ModelChoice::splats)
        return grouped(o.steps) + " full-image steps of " + grouped(p.splat_count) + " splats";
    return grouped(o.steps) + " steps x " + grouped(o.batch) + " pixels (" +
           samples_text(double(o.steps) * o.batch) + " samples)";
}

} // namespace

std::optional<fe::DeviceInfo> device_for(const std::string& selector) {
    static std::once_flag once;
    static std::vector<fe::DeviceInfo> devices;
    std::call_once(once, [] { devices = fe::list_devices(); });
    if (selector == "auto" || selector.empty()) {
        // Device::open's rule: a discrete GPU, then any GPU, then the CPU driver.
        const auto gpu = [](const fe::DeviceInfo& d) {
            return d.type == "discrete" || d.type == "integrated" || d.type == "virtual";
        };
        for (int rank = 0; rank < 3; ++rank)
            for (const fe::DeviceInfo& d : devices)
                if (d.missing.empty() && ((rank == 0 && d.type == "discrete") ||
                                          (rank == 1 && gpu(d)) || (rank == 2 && !gpu(d))))
                    return d;
        return std::nullopt;
    }
    for (const fe::DeviceInfo& d : devices)
        if (d.missing.empty() && (selector == "cpu" ? is_cpu(d) : std::to_string(d.index) == selector))
            return d;
    return std::nullopt;
}

double estimated_training_seconds(const TrainParams& p, const fe::DeviceInfo& device, uint64_t pixels) {
    const fe::TrainOptions& o = p.options;
    const bool cpu = is_cpu(device);
    if (p.choice == ModelChoice::splats) {
        if (pixels == 0) return -1;
        const double per_step = cpu ? kSplatCpuThreadSecondsPerMegapixel / threads() : kSplatGpuSecondsPerMegapixel;
        return o.steps * per_step * (double(pixels) / 1e6) * (double(p.splat_count) / 10000);
    }
    double rate = 0;
    if (p.choice == ModelChoice::siren) {
        const double cost = double(p.model.hidden_width) * p.model.hidden_width * p.model.hidden_layers /
                            (128.0 * 128.0 * 6.0);
        rate = (cpu ? kSirenCpuPerThread * threads() : kSirenGpu) / std::max(cost, 1e-3);
    } else if (p.model.encoding.kind == fe::EncodingKind::hash_grid) {
        rate = cpu ? kHashCpuPerThread * threads() : kGridGpu;
    } else {
        rate = cpu ? kDenseCpuPerThread * threads() : kGridGpu;
    }
    return double(o.steps) * o.batch / rate;
}

std::string rough_duration(double seconds) {
    char buffer[48];
    if (seconds < 1) return "under a second";
    if (seconds < 90) std::snprintf(buffer, sizeof buffer, "%.0f s", seconds);
    else if (seconds < 5400) std::snprintf(buffer, sizeof buffer, "%.0f min", seconds / 60);
    else std::snprintf(buffer, sizeof buffer, "%.0f h %02.0f min", std::floor(seconds / 3600),
                       std::fmod(std::floor(seconds / 60), 60));
    return buffer;
}

TrainingEstimate estimate_training(const TrainParams& params, const std::optional<fe::DeviceInfo>& device,
                                   uint64_t pixels) {
    TrainingEstimate e;
    e.text = "trains " + work_text(params);
    if (!device) {
        e.text += "; no usable Vulkan device found to estimate its time on";
        return e;
    }
    TrainParams fitted = params;
    const bool capped = fit_to_cpu(fitted, device->type, device->name).has_value();
    if (capped) e.text += "; on a CPU driver its CPU budget applies: " + work_text(fitted);
    e.seconds = estimated_training_seconds(fitted, *device, pixels);
    const std::string where = device->name + (is_cpu(*device) ? ", a CPU driver on " + std::to_string(int(threads())) +
                                                                     " threads" : "");
    if (e.seconds < 0) {
        e.text += "; about " + rough_duration(estimated_training_seconds(fitted, *device, 1000000)) +
                  " a megapixel of the image on " + where + " (a rough figure from measured rates)";
        return e;
    }
    e.text += "; about " + rough_duration(e.seconds) + " on " + where + " (a rough figure from measured rates)";
    e.long_on_cpu = is_cpu(*device) && !capped && e.seconds > kLongCpuTrainingSeconds;
    if (e.long_on_cpu)
        e.text += ": set the op's cpu_steps (and cpu_batch) to cap the work on a CPU driver, or "
                  "lower steps or batch";
    return e;
}

} // namespace ff::neural
