#include "train_splats.hpp"

#include "psnr.hpp"
#include "training_checkpoint.hpp"
#include "training_schedule.hpp"

#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/engine/splats.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

namespace ff::neural {

namespace fe = ff::engine;

#if FF_HAVE_SPLATS

bool splats_available() { return true; }

namespace {

double mse(const std::vector<float>& a, const std::vector<float>& b) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        double d = double(a[i]) - double(b[i]);
        sum += d * d;
    }
    return a.empty() ? 0.0 : sum / double(a.size());
}

} // namespace

void train_splats(Node& node, const TrainParams& params, const fe::ImageData& image,
                  const fe::Device& device) {
    using Clock = std::chrono::steady_clock;
    fe::SplatConfig config;
    config.count = params.splat_count;
    fe::SplatTrainOptions options;
    options.steps = params.options.steps;
    options.seed = params.options.seed;
    const Clock::time_point start = Clock::now();
    const uint32_t every = params.checkpoint_interval;
    const std::optional<std::filesystem::path> checkpoint = checkpoint_file(node, every);

    TrainingProgress progress;
    std::optional<fe::SplatTrainer> trainer;
    std::optional<TrainingCheckpoint> c;
    if (checkpoint)
        c = usable_checkpoint(node, *checkpoint, fe::ModelKind::splats, image.width, image.height,
                              options.steps);
    if (c) {
        try {
            trainer.emplace(device, config, options, image, &c->engine.splats);
            progress = c->progress;
        } catch (const fe::EngineError& e) { // another splat count
            warn_ignored_checkpoint(node, *checkpoint, e.what());
        }
    }
    if (!trainer) trainer.emplace(device, config, options, image);
    const uint32_t resumed_from = trainer->step();
    node.log("training " + std::to_string(config.count) + " Gaussian splats for " +
             std::to_string(options.steps) + " steps on " + device.info().name);
    if (resumed_from > 0)
        node.log("resuming from checkpoint at step " + std::to_string(resumed_from) + " of " +
                 std::to_string(options.steps));

    uint32_t last_checkpoint = resumed_from;
    auto save = [&](uint32_t done) { // a failure is only a warning
        if (!checkpoint || done == 0 || done == last_checkpoint) return;
        TrainingCheckpoint c;
        c.engine.kind = fe::ModelKind::splats;
        c.engine.splats = trainer->state();
        c.engine.image_width = image.width;
        c.engine.image_height = image.height;
        c.progress = progress;
        if (save_checkpoint_or_warn(node, *checkpoint, std::move(c), done)) last_checkpoint = done;
    };

    const uint32_t steps = params.options.steps;
    uint32_t done = resumed_from, chunk = 10;
    float loss = float(progress.final_loss);
    node.progress(done, steps, done == 0 ? "starting" : "resumed at step " + std::to_string(done));
    while (done < steps) {
        if (node.cancelled()) {
            save(done); // an interrupt loses no training
            throw Cancelled();
        }
        uint32_t n = std::min(chunk, steps - done);
        if (every > 0) n = std::min(n, (done / every + 1) * every - done);
        const Clock::time_point t0 = Clock::now();
        loss = trainer->train(n);
        const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        progress.train_seconds += seconds;
        done += n;
        if (trainer->diverged() || !std::isfinite(loss))
            throw Error("splat training diverged by step " + std::to_string(done) + " (loss " +
                        std::to_string(loss) + ")");
        progress.final_loss = loss;
        // About half a second per call: a live progress bar, prompt cancellation.
        chunk = uint32_t(std::clamp(seconds > 0 ? n * 0.5 / seconds : 1000.0, 1.0, 1000.0));
        char detail[64];
        std::snprintf(detail, sizeof detail, "loss %.2e", loss);
        node.progress(done, steps, detail);
        if (every > 0 && done % every == 0 && done < steps) save(done);
    }
    const double train_seconds = progress.train_seconds;
    const double final_psnr = psnr_from_mse(mse(trainer->render(image.width, image.height), image.rgb));

    fe::ModelFile file;
    file.kind = fe::ModelKind::splats;
    file.splats = trainer->model();
    file.image_width = image.width;
    file.image_height = image.height;
    file.training.steps = steps;
    file.training.seed = options.seed;
    file.training.lr_mlp = options.lr_color;
    file.training.device = device.info().name;
    file.training.final_loss = loss;
    file.training.final_psnr = final_psnr;
    file.training.train_seconds = train_seconds;
    std::vector<std::byte> bytes;
    try {
        bytes = fe::encode_model_file(file);
    } catch (const fe::ModelFileError& e) {
        throw Error(e.what());
    }
    std::span<std::byte> out = node.output_blob("model", bytes.size());
    std::copy(bytes.begin(), bytes.end(), out.begin());
    nlohmann::json stats = {
        {"model", "splats"},
        {"splats", config.count},
        {"steps", steps},
        {"seed", options.seed},
        {"train_seconds", train_seconds},
        {"wall_seconds", std::chrono::duration<double>(Clock::now() - start).count()},
        {"steps_per_second", train_seconds > 0 ? steps / train_seconds : 0.0},
        {"gpu_seconds", trainer->gpu_seconds()},
        {"final_loss", loss},
        {"final_psnr", final_psnr},
        {"resumed_from_step", resumed_from},
        {"device", device.info().name},
        {"device_type", device.info().type},
        {"model_bytes", bytes.size()},
        {"parameter_count", file.splats.parameter_count()},
        {"image_width", image.width},
        {"image_height", image.height},
    };
    node.output_text("stats", stats.dump(2));
    char line[160];
    std::snprintf(line, sizeof line, "trained %u splats for %u steps in %.2f s, PSNR %.2f dB",
                  config.count, steps, train_seconds, final_psnr);
    node.log(line);
}

std::vector<float> render_splat_model(const fe::Device& device, const fe::SplatModel& model,
                                      uint32_t width, uint32_t height) {
    return fe::render_splats(device, model, width, height);
}

#else

bool splats_available() { return false; }

void train_splats(Node&, const TrainParams&, const fe::ImageData&, const fe::Device&) {
    throw Error("splat model not available in this build");
}

std::vector<float> render_splat_model(const fe::Device&, const fe::SplatModel&, uint32_t, uint32_t) {
    throw Error("splat model not available in this build");
}

#endif

} // namespace ff::neural
