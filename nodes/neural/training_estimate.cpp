#include "training_estimate.hpp"

#include "cpu_budget.hpp"
#include "number_text.hpp"
#include "training_schedule.hpp"

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
// A full-image evaluation (the PSNR at each eval step: training_schedule.hpp) renders every pixel
// once, forward only, where a training sample also runs backward and feeds Adam: a grid or SIREN
// model evaluates this many pixels in a training sample's time, and a splat evaluation costs this
// share of a splat step. Measured with lavapipe on the shared 2-core machine (1-minute load 4 to
// 11): `fieldflow run G.yaml --no-cache --device cpu`, G being ReadImage -> the op at its CPU
// budget -> WriteJson(train.stats), on leuvenA halved to 376x282 (`fieldflow do leuvenA.jpg Resize
// scale=0.5 small.png`) unless named; each ratio is eval_seconds against train_seconds of one run,
// so the load cancels out: the hash grid 2,000 steps x 2,048 in 310.8 s and 5 evaluations in 4.4 s
// (9.1 pixels a sample), the dense grid the same in 276.4 s and 3.1 s (11.5), TrainSiren's
// defaults 500 x 1,024 in 127.6 s and 4 evaluations in 12.2 s (8.7), compare_models' SIREN (128x6,
// 100 x 512) on leuvenA itself in 268.7 s and 1 evaluation in 149.0 s (14.9), splats 100 steps in
// 26.2 s and 3 evaluations in 0.42 s (0.54 of a step). 12 puts each run's training and evaluations
// within 10% of their measured sum against its training. On a GPU the same ratios, rough by design
// as the rates above.
constexpr double kEvaluatedPixelsPerTrainingSample = 12;
constexpr double kSplatEvaluationSteps = 0.5;

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

uint32_t estimated_evaluations(const TrainParams& p) {
    TrainingSchedule schedule;
    schedule.steps = p.options.steps;
    schedule.snapshot_steps = resolve_snapshot_steps(p.snapshot_steps, schedule.steps);
    schedule.eval_interval = p.eval_interval;
    return schedule.evaluations();
}

TrainingSeconds estimated_training_time(const TrainParams& p, const fe::DeviceInfo& device) {
    const fe::TrainOptions& o = p.options;
    const bool cpu = is_cpu(device);
    const double evaluations = estimated_evaluations(p);
    if (p.choice == ModelChoice::splats) {
        const double per_step = (cpu ? kSplatCpuThreadSecondsPerMegapixel / threads() : kSplatGpuSecondsPerMegapixel) *
                                (double(p.splat_count) / 10000);
        return {0, (o.steps + evaluations * kSplatEvaluationSteps) * per_step};
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
    return {double(o.steps) * o.batch / rate, evaluations * 1e6 / (rate * kEvaluatedPixelsPerTrainingSample)};
}

double TrainingSeconds::for_pixels(uint64_t pixels) const { return fixed + per_megapixel * (double(pixels) / 1e6); }

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
    const TrainingSeconds time = estimated_training_time(fitted, *device);
    const std::string where = device->name + (is_cpu(*device) ? ", a CPU driver on " + std::to_string(int(threads())) +
                                                                     " threads" : "");
    // What the figure counts: a user comparing it with the run's training time sees why it is larger.
    const uint32_t evaluations = estimated_evaluations(fitted);
    const std::string counts = " (training and " + grouped(evaluations) + " full-image evaluation" +
                               (evaluations == 1 ? "" : "s") + "; a rough figure from measured rates)";
    if (pixels > 0) {
        e.seconds = time.for_pixels(pixels);
        e.text += "; about " + rough_duration(e.seconds) + " on " + where + counts;
    } else if (time.fixed > 0) {
        e.text += "; about " + rough_duration(time.fixed) + " plus " + rough_duration(time.per_megapixel) +
                  " a megapixel of the image on " + where + counts;
    } else {
        e.text += "; about " + rough_duration(time.per_megapixel) + " a megapixel of the image on " + where + counts;
        return e;
    }
    // Before the image is known, its training steps alone decide the warning.
    const double known = pixels > 0 ? e.seconds : time.fixed;
    e.long_on_cpu = is_cpu(*device) && !capped && known > kLongCpuTrainingSeconds;
    if (e.long_on_cpu)
        e.text += ": set the op's cpu_steps (and cpu_batch) to cap the work on a CPU driver, or "
                  "lower steps or batch";
    return e;
}

} // namespace ff::neural
