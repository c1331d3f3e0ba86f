// Train: learn one image as a feature grid + MLP on the engine; output the model file bytes and
// training statistics; optionally write snapshots, a CSV log and a loss/PSNR curve.
#include "device_cache.hpp"
#include "neural_images.hpp"
#include "psnr.hpp"
#include "snapshot_files.hpp"
#include "train_params.hpp"
#include "train_splats.hpp"
#include "training_log.hpp"
#include "training_schedule.hpp"

#include "common/image_mat.hpp"

#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

namespace ff::neural {
namespace {

namespace fe = ff::engine;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// One engine call should take about this long: short enough for a live progress bar and a prompt
// reaction to cancellation, long enough that the per-call submit/wait cost stays negligible.
constexpr double kChunkSeconds = 0.5;
constexpr uint32_t kMaxChunkSteps = 1000;
constexpr uint32_t kFirstChunkSteps = 10;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// The first `limit` pixels in row order, rounded up to whole rows (Train's `limit`).
fe::ImageData limited(fe::ImageData image, uint64_t limit, const Node& node) {
    if (limit == 0 || limit >= uint64_t(image.width) * image.height) return image;
    const uint32_t rows = uint32_t((limit + image.width - 1) / image.width);
    image.height = rows;
    image.rgb.resize(size_t(image.width) * rows * 3);
    node.log("training on the first " + std::to_string(rows) + " rows (" +
             std::to_string(uint64_t(image.width) * rows) + " pixels; limit " +
             std::to_string(limit) + ")");
    return image;
}

fe::ImageData image_data(const ImageView& view, const Node& node) {
    cv::Mat rgb = ff::nodes::rgb_mat(view, "image");
    fe::ImageData data;
    data.width = view.width;
    data.height = view.height;
    data.rgb.resize(size_t(view.width) * view.height * 3);
    size_t clamped = 0, i = 0;
    for (int y = 0; y < rgb.rows; ++y) {
        const float* row = rgb.ptr<float>(y);
        for (int x = 0; x < rgb.cols * 3; ++x, ++i) {
            float v = row[x];
            float c = std::isfinite(v) ? std::min(1.0f, std::max(0.0f, v)) : 0.0f;
            clamped += c != v;
            data.rgb[i] = c;
        }
    }
    if (clamped > 0)
        node.warn("input image has " + std::to_string(clamped) +
                  " values outside [0, 1] (or not finite); they were clamped for training");
    return data;
}

std::string format(const char* fmt, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, value);
    return buffer;
}

class TrainingRun {
public:
    TrainingRun(Node& node, TrainParams params, const fe::ImageData& image, fe::Device device)
        : node_(node), params_(std::move(params)), image_(image), device_(std::move(device)),
          config_(model_config_for_image(params_, image.width, image.height)) {
        schedule_.steps = params_.options.steps;
        schedule_.snapshot_steps = resolve_snapshot_steps(params_.snapshot_steps, schedule_.steps);
        schedule_.eval_interval = params_.eval_interval;
    }

    void run() {
        const Clock::time_point setup_start = Clock::now();
        start_ = setup_start;
        trainer_.emplace(device_, config_, params_.options, image_);
        setup_seconds_ = seconds_since(setup_start);
        if (!params_.snapshots.empty()) {
            std::error_code error;
            fs::create_directories(params_.snapshots, error);
            if (error)
                throw ParamError("snapshots", "cannot create snapshot folder '" +
                                                  params_.snapshots + "': " + error.message());
            // Snapshots of an earlier run at other steps would mix into this run's strip.
            for (const auto& [step, files] : find_snapshots(params_.snapshots)) {
                if (!files.prediction.empty()) fs::remove(files.prediction, error);
                if (!files.feature.empty()) fs::remove(files.feature, error);
            }
        }
        node_.log("training " + description() + " for " +
                  std::to_string(schedule_.steps) + " steps on " + device_.info().name + " (" +
                  trainer_->kernel_path() + " kernels)");
        try {
            loop();
        } catch (...) {
            write_log(); // what was learned so far stays inspectable
            throw;
        }
        write_log();
        output();
    }

private:
    bool siren() const { return config_.encoding.kind == fe::EncodingKind::coords; }

    std::string description() const {
        std::string mlp = std::to_string(config_.hidden_width) + "x" + std::to_string(config_.hidden_layers);
        if (siren()) return "SIREN " + mlp + " (omega " + format("%g", config_.first_omega) + ")";
        return std::to_string(config_.grid_width) + "x" + std::to_string(config_.grid_height) + "x" +
               std::to_string(config_.grid_channels) + " grid + MLP " + mlp;
    }

    void loop() {
        if (schedule_.is_snapshot(0)) snapshot(0);
        uint32_t done = 0;
        double rate = 0;
        node_.progress(0, schedule_.steps, "starting");
        while (done < schedule_.steps) {
            node_.throw_if_cancelled();
            uint32_t stop = schedule_.next_stop(
                done, chunk_size(rate, kChunkSeconds, kFirstChunkSteps, kMaxChunkSteps));
            if (const uint32_t every = params_.log_interval; every > 0)
                stop = std::min(stop, (done / every + 1) * every);
            const Clock::time_point start = Clock::now();
            const float loss = trainer_->train(stop - done);
            const double seconds = seconds_since(start);
            train_seconds_ += seconds;
            rate = seconds > 0 ? (stop - done) / seconds : 0;

            TrainingLogRow row{stop, loss, std::nullopt, rate, train_seconds_};
            if (trainer_->diverged() || !std::isfinite(loss)) {
                log_.add(row);
                throw Error("training diverged between steps " + std::to_string(done + 1) +
                            " and " + std::to_string(stop) + " (loss is " + format("%g", loss) +
                            "): the learning rate is probably too high (lr_mlp " +
                            format("%g", params_.options.lr_mlp) + ", lr_grid " +
                            format("%g", params_.options.lr_grid) + "); try lowering them" +
                            (last_snapshot_ ? "; the last good snapshot is step " +
                                                  std::to_string(*last_snapshot_)
                                            : std::string()));
            }
            done = stop;
            final_loss_ = loss;
            std::string detail = "loss " + format("%.2e", loss);
            if (schedule_.is_eval(done)) {
                row.psnr = psnr_from_mse(trainer_->full_image_mse());
                final_psnr_ = *row.psnr;
                detail += ", " + format("%.2f", *row.psnr) + " dB";
            } else if (final_psnr_) {
                detail += ", " + format("%.2f", *final_psnr_) + " dB";
            }
            log_.add(row);
            if (params_.log_interval > 0 && done % params_.log_interval == 0)
                node_.log("step " + std::to_string(done) + ": " + detail + ", " +
                          format("%.0f", rate) + " steps/s");
            node_.progress(done, schedule_.steps, detail);
            if (schedule_.is_snapshot(done)) snapshot(done);
        }
    }

    void snapshot(uint32_t step) {
        if (params_.snapshots.empty()) return;
        const fs::path folder(params_.snapshots);
        const std::string suffix = "_at_" + std::to_string(step) + ".png";
        write_png(folder / ("prediction" + suffix),
                  rgb_from_render(trainer_->render(image_.width, image_.height), image_.width,
                                  image_.height));
        if (!siren()) write_png(folder / ("feature" + suffix), feature_image(trainer_->model()));
        last_snapshot_ = step;
    }

    void write_log() {
        if (params_.log.empty()) return;
        try {
            log_.write(params_.log);
        } catch (const std::exception& e) {
            node_.warn(std::string("could not write the training log: ") + e.what());
        }
    }

    void output() {
        fe::ModelFile file;
        file.kind = siren() ? fe::ModelKind::siren : fe::ModelKind::grid;
        file.model = trainer_->model();
        file.image_width = image_.width;
        file.image_height = image_.height;
        fe::TrainingInfo& t = file.training;
        t.steps = schedule_.steps;
        t.batch = params_.options.batch;
        t.seed = params_.options.seed;
        t.lr_mlp = params_.options.lr_mlp;
        t.lr_grid = params_.options.lr_grid;
        t.device = device_.info().name;
        t.kernel_path = trainer_->kernel_path();
        t.final_loss = final_loss_;
        t.final_psnr = final_psnr_.value_or(0.0);
        t.train_seconds = train_seconds_;
        std::vector<std::byte> bytes;
        try {
            bytes = fe::encode_model_file(file);
        } catch (const fe::ModelFileError& e) {
            throw Error(e.what());
        }
        std::span<std::byte> out = node_.output_blob("model", bytes.size());
        std::copy(bytes.begin(), bytes.end(), out.begin());

        nlohmann::json stats = {
            {"model", fe::model_kind_name(file.kind)},
            {"steps", schedule_.steps},
            {"batch", params_.options.batch},
            {"seed", params_.options.seed},
            {"lr_mlp", params_.options.lr_mlp},
            {"lr_grid", params_.options.lr_grid},
            {"lr_warmup", params_.options.lr_warmup},
            {"lr_decay_start", params_.options.lr_decay_start},
            {"lr_final_scale", params_.options.lr_final_scale},
            {"grid_adam", params_.options.grid_adam == fe::GridAdam::dense ? "dense" : "sparse"},
            {"train_seconds", train_seconds_},
            {"setup_seconds", setup_seconds_},
            // Everything the node did: setup, training, evaluations and snapshots.
            {"wall_seconds", seconds_since(start_)},
            {"steps_per_second", train_seconds_ > 0 ? schedule_.steps / train_seconds_ : 0.0},
            {"final_loss", final_loss_},
            {"final_psnr", t.final_psnr},
            {"device", device_.info().name},
            {"device_type", device_.info().type},
            {"kernel_path", trainer_->kernel_path()},
            {"device_bytes", trainer_->device_bytes()},
            {"model_bytes", bytes.size()},
            {"parameter_count", file.model.parameter_count()},
            {"image_width", image_.width},
            {"image_height", image_.height},
            {"grid_width", config_.grid_width},
            {"grid_height", config_.grid_height},
            {"grid_channels", config_.grid_channels},
            {"hidden_width", config_.hidden_width},
            {"hidden_layers", config_.hidden_layers},
            {"omega", config_.first_omega},
            {"snapshot_steps", schedule_.snapshot_steps},
        };
        node_.output_text("stats", stats.dump(2));
        node_.log("trained " + std::to_string(schedule_.steps) + " steps in " +
                  format("%.2f", train_seconds_) + " s (" +
                  format("%.0f", stats["steps_per_second"].get<double>()) + " steps/s), PSNR " +
                  format("%.2f", t.final_psnr) + " dB, model " + std::to_string(bytes.size()) +
                  " bytes");
    }

    Node& node_;
    TrainParams params_;
    const fe::ImageData& image_;
    fe::Device device_;
    fe::ModelConfig config_;
    TrainingSchedule schedule_;
    std::optional<fe::Trainer> trainer_;
    TrainingLog log_;
    Clock::time_point start_;
    double setup_seconds_ = 0, train_seconds_ = 0;
    double final_loss_ = 0;
    std::optional<double> final_psnr_;
    std::optional<uint32_t> last_snapshot_;
};

void execute_train(Node& node) {
    TrainParams params = read_train_params(node);
    const fe::ImageData image = limited(image_data(node.image("image"), node), params.limit, node);
    fe::Device device = shared_device(device_selector(node, params.device));
    try {
        if (params.choice == ModelChoice::splats) {
            train_splats(node, params, image, device);
            return;
        }
        TrainingRun(node, std::move(params), image, device).run();
    } catch (const fe::EngineError& e) {
        throw Error(e.what());
    }
}

} // namespace

FF_NODE(train) =
    declare_train_params(
        ff::op("Train", "neural")
            .doc("Learns one image as a feature grid sampled bilinearly plus a small MLP, "
                 "(u, v) -> RGB (model: grid), as a SIREN (model: siren) or as 2D Gaussian splats "
                 "(model: splats), trained with Adam on the compute device. Outputs the model (model file bytes, see docs/model-format.md) and training "
                 "statistics; optionally writes prediction_at_<step>.png and feature_at_<step>.png "
                 "snapshots, a CSV training log and a loss/PSNR curve.")
            .flags(FF_OP_CACHE_ON_DISK)
            .version(ff::engine::kVersion)
            .input("image", kImage, "image to learn (RGB, values in [0, 1])")
            .output("model", kModel, "the trained model (model file bytes)")
            .output("stats", kJson,
                    "steps, train_seconds, steps_per_second, final_loss, final_psnr, device, "
                    "kernel_path, device_bytes, model_bytes, parameter_count, ..."))
        .validate([](Node& node) { read_train_params(node); })
        .execute(execute_train);

} // namespace ff::neural
