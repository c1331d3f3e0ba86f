// Train: learn one image as a feature grid + MLP on the engine; output the model file bytes and
// training statistics; optionally write snapshots, a CSV log and a loss/PSNR curve.
#include "cpu_budget.hpp"
#include "device_cache.hpp"
#include "neural_images.hpp"
#include "output_size.hpp"
#include "psnr.hpp"
#include "snapshot_files.hpp"
#include "train_params.hpp"
#include "train_splats.hpp"
#include "training_checkpoint.hpp"
#include "training_estimate.hpp"
#include "training_progress_text.hpp"
#include "background_writer.hpp"
#include "training_log.hpp"
#include "training_schedule.hpp"

#include "common/cancellable_call.hpp"
#include "common/image_mat.hpp"

#include <fieldflow/engine/encoding_names.hpp>
#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
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
    // The model learns RGB: gray is learned as three equal channels (Infer's `like` input turns it
    // back into gray) and alpha is not learned (Infer's `like` carries it through).
    if (view.channels == 4)
        node.warn("the image's alpha channel is not learned: the model learns RGB; connect the "
                  "image to Infer's 'like' input to carry the alpha through");
    cv::Mat rgb = ff::nodes::rgb_mat(view, "image");
    fe::ImageData data;
    data.width = view.width;
    data.height = view.height;
    data.source_bits = view.bits == 0 ? 8 : view.bits;
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
    // One warning for everything the training target changes.
    const std::string outside = std::to_string(clamped) + " values outside [0, 1] (or not finite)";
    if (view.bits == 32)
        node.warn("the image has 32-bit float samples; training keeps them at 16 bits per channel" +
                  (clamped > 0 ? ", and its " + outside + " were clamped" : std::string(" in [0, 1]")));
    else if (clamped > 0)
        node.warn("input image has " + outside + "; they were clamped for training");
    return data;
}

std::string format(const char* fmt, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, fmt, value);
    return buffer;
}

class TrainingRun {
public:
    TrainingRun(Node& node, TrainParams params, const fe::ImageData& image, fe::Device device,
                double device_open_seconds)
        : node_(node), params_(std::move(params)), image_(image), device_(std::move(device)),
          device_open_seconds_(device_open_seconds),
          config_(model_config_for_image(params_, image.width, image.height)) {
        schedule_.steps = params_.options.steps;
        schedule_.snapshot_steps = resolve_snapshot_steps(params_.snapshot_steps, schedule_.steps);
        schedule_.eval_interval = params_.eval_interval;
        checkpoint_ = checkpoint_file(node_, params_.checkpoint_interval);
    }

    void run() {
        const Clock::time_point setup_start = Clock::now();
        start_ = setup_start;
        start_trainer();
        setup_seconds_ = seconds_since(setup_start);
        prepare_snapshot_folder();
        node_.log("training " + description() + " for " +
                  std::to_string(schedule_.steps) + " steps on " + device_.info().name + " (" +
                  trainer_->kernel_path() + " kernels" +
                  (trainer_->encoding_optimizer().starts_with("dense, lazy") ? ", lazy dense Adam on the encoding" : "") +
                  (trainer_->image_parts() > 1 ? ", the image in " + std::to_string(trainer_->image_parts()) + " buffers" : "") +
                  (trainer_->state_by_address() ? ", the encoding's training state by address" : "") +
                  ")");
        if (const std::string why = trainer_->kernel_path_reason(); !why.empty())
            node_.log("warning: this device has tensor cores, but this model trains on the portable "
                      "kernels: " + why);
        if (resumed_from_ > 0)
            node_.log("resuming from checkpoint at step " + std::to_string(resumed_from_) + " of " +
                      std::to_string(schedule_.steps));
        try {
            loop();
        } catch (...) {
            write_log(); // what was learned so far stays inspectable
            throw;
        }
        write_log();               // while the last snapshot is encoded and written
        snapshot_writer_.finish(); // its error, if any, fails the node, the log kept
        output();
    }

private:
    bool siren() const { return config_.encoding.kind == fe::EncodingKind::coords; }
    fe::ModelKind kind() const { return siren() ? fe::ModelKind::siren : fe::ModelKind::grid; }

    std::string description() const { return fe::model_summary(config_); }

    // A fresh trainer, or one resumed from this work's checkpoint. A checkpoint that cannot be
    // used (damaged, another format, not this run's) is a warning and a fresh start, never a failure.
    void start_trainer() {
        std::optional<TrainingCheckpoint> checkpoint;
        if (checkpoint_)
            checkpoint = usable_checkpoint(node_, *checkpoint_, kind(), image_.width, image_.height,
                                           schedule_.steps);
        if (checkpoint) {
            try {
                trainer_ = std::make_shared<fe::Trainer>(device_, config_, params_.options, image_,
                                                          &checkpoint->engine.trainer);
                progress_ = std::move(checkpoint->progress);
                resumed_from_ = trainer_->step();
                last_checkpoint_ = resumed_from_;
                return;
            } catch (const fe::EngineError& e) { // another model configuration
                warn_ignored_checkpoint(node_, *checkpoint_, e.what());
            }
        }
        log_device_memory();
        trainer_ = std::make_shared<fe::Trainer>(device_, config_, params_.options, image_);
    }

    // What the run will hold on the device (the Trainer refuses one that cannot fit, with the same
    // figures), said up front for large images, where it matters.
    void log_device_memory() {
        const fe::MemoryEstimate memory = fe::estimate_training_memory(
            device_, config_, params_.options, image_.width, image_.height, image_.source_bits);
        if (memory.total < (uint64_t(1) << 30)) return;
        node_.log("device memory: about " + memory.text() + " of " +
                  format("%.1f", double(memory.device_memory) / double(uint64_t(1) << 30)) + " GiB on " +
                  device_.info().name);
    }

    // Snapshots of an earlier run at other steps would mix into this run's strip: a fresh run
    // removes them, a resumed one keeps the snapshots its checkpoint recorded. Only files Train
    // wrote (marked, see mark_snapshot_png) are removed or replaced: another file of a snapshot's
    // name is kept, and one with the name of a snapshot this run writes stops it before training.
    void prepare_snapshot_folder() {
        if (params_.snapshots.empty()) return;
        std::error_code error;
        fs::create_directories(params_.snapshots, error);
        if (error)
            throw ParamError("snapshots", "cannot create snapshot folder '" + params_.snapshots +
                                              "': " + error.message());
        const std::vector<uint32_t>& kept = progress_.snapshots;
        const auto found = find_snapshots(params_.snapshots);
        for (const auto& [step, files] : found) {
            const bool ours = std::find(kept.begin(), kept.end(), step) != kept.end();
            for (const fs::path& file : {files.prediction, files.feature}) {
                if (file.empty() || (ours && is_marked_snapshot(file))) continue;
                if (is_marked_snapshot(file)) {
                    fs::remove(file, error);
                } else if (schedule_.is_snapshot(step) && (resumed_from_ == 0 || step > resumed_from_)) {
                    throw ParamError("snapshots", "'" + file.string() + "' was not written by fieldflow and this "
                                                  "run writes a snapshot of that name; move it away (or give "
                                                  "another snapshots folder)");
                } else {
                    node_.warn("kept '" + file.string() + "': it has a snapshot's name but was not written "
                               "by fieldflow");
                }
            }
        }
        for (uint32_t step : kept) {
            if (auto it = found.find(step); it != found.end()) {
                // Written before the interrupt: side files of this work all the same.
                for (const fs::path& file : {it->second.prediction, it->second.feature})
                    if (!file.empty() && is_marked_snapshot(file)) node_.side_file("snapshots", file.string());
            }
            if (auto it = found.find(step); it == found.end() || it->second.prediction.empty())
                node_.warn("the snapshot at step " + std::to_string(step) +
                           " written before the interrupt is no longer in '" + params_.snapshots +
                           "'");
        }
        if (!kept.empty()) last_snapshot_ = kept.back();
    }

    void loop() {
        uint32_t done = trainer_->step();
        if (done == 0 && schedule_.is_snapshot(0)) snapshot(0);
        double rate = 0;
        node_.progress(done, schedule_.steps,
                       done == 0 ? "starting" : "resumed at step " + std::to_string(done));
        while (done < schedule_.steps) {
            if (node_.cancelled()) {
                save_checkpoint_quietly(done); // an interrupt loses no training
                throw Cancelled();
            }
            uint32_t stop = schedule_.next_stop(
                done, chunk_size(rate, kChunkSeconds, kFirstChunkSteps, kMaxChunkSteps));
            for (const uint32_t every : {params_.log_interval, params_.checkpoint_interval})
                if (every > 0) stop = std::min(stop, (done / every + 1) * every);
            const Clock::time_point start = Clock::now();
            const float loss = trainer_->train(stop - done);
            const double seconds = seconds_since(start);
            progress_.train_seconds += seconds;
            rate = seconds > 0 ? (stop - done) / seconds : 0;

            TrainingLogRow row{stop, loss, std::nullopt, rate, progress_.train_seconds};
            if (trainer_->diverged() || !std::isfinite(loss)) {
                progress_.log.push_back(row);
                throw Error(divergence_message(trainer_->diverged_step() ? trainer_->diverged_step() : stop));
            }
            done = stop;
            progress_.final_loss = loss;
            progress_text_.add_loss(loss);
            if (schedule_.is_eval(done)) {
                const Clock::time_point eval_start = Clock::now();
                row.psnr = psnr_from_mse(full_image_mse(done, rate));
                eval_seconds_ += seconds_since(eval_start);
                progress_.final_psnr = *row.psnr;
                progress_text_.add_eval(*row.psnr, done);
            }
            const std::string detail = progress_text_.text(loss);
            progress_.log.push_back(row);
            if (params_.log_interval > 0 && done % params_.log_interval == 0)
                node_.log("step " + std::to_string(done) + ": " + detail + ", " +
                          format("%.0f", rate) + " steps/s");
            node_.progress(done, schedule_.steps, detail);
            if (schedule_.is_snapshot(done)) {
                const Clock::time_point snapshot_start = Clock::now();
                snapshot(done);
                snapshot_seconds_ += seconds_since(snapshot_start);
            }
            // The last step needs none: the finished model goes to the cache.
            if (params_.checkpoint_interval > 0 && done % params_.checkpoint_interval == 0 &&
                done < schedule_.steps)
                save_checkpoint_quietly(done);
        }
    }

    // A full-image evaluation is one engine call, seconds long for a large image or model: it runs
    // on a thread of its own, so a cancel is answered at once (common/cancellable_call.hpp) and
    // the call is abandoned with the trainer it holds. No checkpoint can be taken while it runs,
    // so one is taken first where the evaluation may be long (the last one was, or before any:
    // the image's pixels take longer than a second at `steps_per_second` x batch samples per
    // second, a training sample costing at least what a pixel's evaluation does): a cancel loses
    // no training.
    double full_image_mse(uint32_t done, double steps_per_second) {
        const double pixels = double(image_.width) * image_.height;
        const double expected = last_eval_seconds_ ? *last_eval_seconds_
                                : steps_per_second > 0 ? pixels / (steps_per_second * params_.options.batch)
                                                       : kQuickEvalSeconds;
        if (expected >= kQuickEvalSeconds) save_checkpoint_quietly(done);
        const Clock::time_point start = Clock::now();
        const double mse = nodes::call_cancellable_result(
            node_, [trainer = trainer_] { return trainer->full_image_mse(); },
            [&](double seconds) {
                node_.progress(done, schedule_.steps, "evaluating the full image, " + format("%.0f", seconds) + " s");
            });
        last_eval_seconds_ = seconds_since(start);
        return mse;
    }
    static constexpr double kQuickEvalSeconds = 0.5;

    // Training stopped on a non-finite loss at `step`: where, the likely cause (a learning rate
    // too high for this model: the parameters overflow), and what is left to look at.
    std::string divergence_message(uint32_t step) const {
        const fe::TrainOptions& o = params_.options;
        std::string rates = siren() ? "lr_siren " + format("%g", o.lr_mlp) + " with omega " +
                                          format("%g", config_.first_omega) + " and " +
                                          std::to_string(config_.hidden_layers) + " hidden layers"
                                    : "lr_mlp " + format("%g", o.lr_mlp) + ", lr_grid " + format("%g", o.lr_grid);
        std::string message = "training diverged at step " + std::to_string(step) +
                              " (the loss is not finite): the learning rate is probably too high (" +
                              rates + "), so the parameters overflowed; try a lower one";
        if (last_snapshot_)
            message += "; the last good snapshot is step " + std::to_string(*last_snapshot_) +
                       " (in '" + params_.snapshots + "')";
        return message;
    }

    // Writes this work's checkpoint at step `done` (once per step); a failure is only a warning.
    void save_checkpoint_quietly(uint32_t done) {
        if (!checkpoint_ || done == 0 || done == last_checkpoint_) return;
        // The checkpoint lists the snapshots written so far: each must be on disk before it
        // says so, or a resumed run would miss the one still being encoded (the writer's jobs
        // are previews of bounded size: this waits a fraction of a second at most).
        snapshot_writer_.finish();
        TrainingCheckpoint c;
        c.engine.kind = kind();
        c.engine.trainer = trainer_->state();
        c.engine.image_width = image_.width;
        c.engine.image_height = image_.height;
        c.progress = progress_;
        if (save_checkpoint_or_warn(node_, *checkpoint_, std::move(c), done)) last_checkpoint_ = done;
    }

    void snapshot(uint32_t step) {
        if (params_.snapshots.empty()) return;
        const fs::path folder(params_.snapshots);
        const std::string suffix = "_at_" + std::to_string(step) + ".png";
        // Rendered at the preview size itself (the field is continuous): a snapshot of a
        // 67-megapixel image costs what a 1-megapixel one does.
        const OutputSize shown = fit_within(image_.width, image_.height, params_.snapshot_size);
        const fs::path prediction_path = folder / ("prediction" + suffix), feature_path = folder / ("feature" + suffix);
        cv::Mat prediction(int(shown.height), int(shown.width), CV_32FC3);
        trainer_->render_into(shown.width, shown.height, prediction.ptr<float>());
        // The feature image shows a dense grid's cells; a hash table has no picture of its own.
        cv::Mat feature;
        if (config_.encoding.kind == fe::EncodingKind::dense_grid) {
            feature = feature_image(trainer_->model());
            const OutputSize size = fit_within(uint32_t(feature.cols), uint32_t(feature.rows), params_.snapshot_size);
            if (int(size.width) != feature.cols)
                cv::resize(feature, feature, cv::Size(int(size.width), int(size.height)), 0, 0, cv::INTER_AREA);
        }
        // Encoded and written while training goes on (the writer waits for the previous one and
        // finishes before the node does, also when it fails or is cancelled).
        snapshot_writer_.post([prediction, feature, prediction_path, feature_path] {
            std::vector<EncodedFile> files{{prediction_path, mark_snapshot_png(png_text(prediction))}};
            if (!feature.empty()) files.push_back({feature_path, mark_snapshot_png(png_text(feature))});
            return files;
        });
        // Side files: kept with the cached result, so a cached run writes them too.
        node_.side_file("snapshots", prediction_path.string());
        if (!feature.empty()) node_.side_file("snapshots", feature_path.string());
        last_snapshot_ = step;
        progress_.snapshots.push_back(step);
    }

    void write_log() {
        if (params_.log.empty()) return;
        try {
            TrainingLog log;
            for (const TrainingLogRow& row : progress_.log) log.add(row);
            log.write(params_.log);
            const char* param = node_.string("log").empty() ? "snapshots" : "log";
            node_.side_file(param, params_.log);
            node_.side_file(param, TrainingLog::curve_path(params_.log).string());
        } catch (const std::exception& e) {
            node_.warn(std::string("could not write the training log: ") + e.what());
        }
    }

    void output() {
        fe::ModelFile file;
        file.kind = kind();
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
        t.final_loss = progress_.final_loss;
        t.final_psnr = progress_.final_psnr.value_or(0.0);
        t.train_seconds = progress_.train_seconds;
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
            // The graph's steps and batch when the CPU budget cut them (cpu_budget.hpp), else these.
            {"asked_steps", params_.asked_steps ? params_.asked_steps : schedule_.steps},
            {"asked_batch", params_.asked_batch ? params_.asked_batch : params_.options.batch},
            {"cpu_budget", params_.cpu_budget_note},
            {"seed", params_.options.seed},
            {"lr_mlp", params_.options.lr_mlp},
            {"lr_grid", params_.options.lr_grid},
            {"lr_warmup", params_.options.lr_warmup},
            {"lr_decay_start", params_.options.lr_decay_start},
            {"lr_final_scale", params_.options.lr_final_scale},
            {"hidden_bias", params_.options.hidden_bias},
            {"grid_adam", params_.options.grid_adam == fe::GridAdam::dense ? "dense" : "sparse"},
            {"encoding_optimizer", trainer_->encoding_optimizer()},
            {"train_seconds", progress_.train_seconds},
            {"setup_seconds", setup_seconds_},
            // Device time of the training steps from GPU timestamps (0: the device has none; on a
            // CPU driver it is the CPU's time running them).
            {"gpu_seconds", trainer_->gpu_seconds()},
            {"device_open_seconds", device_open_seconds_},
            // Full-image PSNR evaluations, and snapshots (render and hand-off to the writer).
            {"eval_seconds", eval_seconds_},
            {"snapshot_seconds", snapshot_seconds_},
            // Everything the node did: setup, training, evaluations and snapshots.
            {"wall_seconds", seconds_since(start_)},
            {"steps_per_second", progress_.train_seconds > 0 ? schedule_.steps / progress_.train_seconds : 0.0},
            {"final_loss", progress_.final_loss},
            {"final_psnr", t.final_psnr},
            {"device", device_.info().name},
            {"device_type", device_.info().type},
            {"kernel_path", trainer_->kernel_path()},
            {"kernel_path_reason", trainer_->kernel_path_reason()},
            // Fixed-point encoding gradients: the same seed gives the same model bit for bit.
            {"fixed_point_gradients", device_.fixed_point_gradients()},
            {"device_bytes", trainer_->device_bytes()},
            {"model_bytes", bytes.size()},
            {"parameter_count", file.model.parameter_count()},
            {"image_width", image_.width},
            {"image_height", image_.height},
            {"model_summary", fe::model_summary(config_)},
            {"encoding", std::string(fe::encoding_name(config_.encoding.kind))},
            {"grid_width", config_.grid_width},
            {"grid_height", config_.grid_height},
            {"grid_channels", config_.grid_channels},
            {"hidden_width", config_.hidden_width},
            {"hidden_layers", config_.hidden_layers},
            {"omega", config_.first_omega},
            {"snapshot_steps", schedule_.snapshot_steps},
            // Training went on from a checkpoint at this step (0: from the start); the times
            // above include the earlier run's training.
            {"resumed_from_step", resumed_from_},
        };
        node_.output_text("stats", stats.dump(2));
        node_.log("trained " + std::to_string(schedule_.steps) + " steps in " +
                  format("%.2f", progress_.train_seconds) + " s (" +
                  format("%.0f", stats["steps_per_second"].get<double>()) + " steps/s), PSNR " +
                  format("%.2f", t.final_psnr) + " dB, model " + std::to_string(bytes.size()) +
                  " bytes");
    }

    Node& node_;
    TrainParams params_;
    const fe::ImageData& image_;
    fe::Device device_;
    double device_open_seconds_; // opening the device (first use in the process) and reading the image
    fe::ModelConfig config_;
    TrainingSchedule schedule_;
    std::shared_ptr<fe::Trainer> trainer_; // shared with an evaluation a cancel abandons
    TrainingProgressText progress_text_; // the progress line's loss-derived and measured dB
    TrainingProgress progress_; // log rows, snapshots written, time trained: what a checkpoint keeps
    std::optional<fs::path> checkpoint_; // this work's checkpoint file; none without a state folder
    uint32_t resumed_from_ = 0;
    uint32_t last_checkpoint_ = 0;
    Clock::time_point start_;
    double setup_seconds_ = 0;
    double eval_seconds_ = 0, snapshot_seconds_ = 0;
    std::optional<double> last_eval_seconds_;
    std::optional<uint32_t> last_snapshot_;
    BackgroundWriter snapshot_writer_; // last member: the first destroyed, while the rest still exist
};

void execute_train(Node& node) {
    const Clock::time_point start = Clock::now();
    TrainParams params = read_train_params(node);
    const fe::ImageData image = limited(image_data(node.image("image"), node), params.limit, node);
    fe::Device device = shared_device(device_selector(node, params.device));
    const TrainingEstimate estimate =
        estimate_training(params, device.info(), uint64_t(image.width) * image.height);
    if (estimate.long_on_cpu) node.warn(estimate.text);
    else node.log(estimate.text);
    if (std::optional<std::string> warning = fit_to_cpu(params, device.info().type, device.info().name))
        node.log("warning: " + *warning);
    try {
        if (params.choice == ModelChoice::splats) {
            train_splats(node, params, image, device);
            return;
        }
        TrainingRun(node, std::move(params), image, device, seconds_since(start)).run();
    } catch (const fe::EngineError& e) {
        throw Error(e.what());
    }
}

} // namespace

FF_NODE(train) =
    declare_train_params(
        ff::op("Train", "neural")
            .doc("Learns one image as a feature grid sampled bilinearly plus a small MLP, "
                 "(u, v) -> RGB (model: grid; encoding: hash for a multiresolution hash grid "
                 "instead of the dense grid), as a SIREN (model: siren) or as 2D Gaussian splats "
                 "(model: splats), trained with Adam on the compute device. Outputs the model (model file bytes, see docs/model-format.md) and training "
                 "statistics; optionally writes prediction_at_<step>.png and (dense grid) feature_at_<step>.png "
                 "snapshots, a CSV training log and a loss/PSNR curve.")
            .flags(FF_OP_CACHE_ON_DISK)
            .version(ff::engine::kVersion)
            .input("image", kImage, "image to learn (RGB, values in [0, 1])")
            .output("model", kModel, "the trained model (model file bytes)")
            .output("stats", kJson,
                    "steps, train_seconds, steps_per_second, final_loss, final_psnr, device, "
                    "kernel_path, device_bytes, model_bytes, parameter_count, ..."))
        .validate([](Node& node) {
            const TrainParams params = read_train_params(node);
            check_device_param(node.string("device"));
            // The work and its time on the device the run would pick (the image, and so a splat
            // model's cost, is not known yet).
            const TrainingEstimate estimate =
                estimate_training(params, device_for(device_selector(node, params.device)), 0);
            node.log(estimate.text, estimate.long_on_cpu ? FF_LOG_WARNING : FF_LOG_INFO);
        })
        .prepare([](Node& node) { open_device_early(node, node.string("device")); })
        .release([](Node& node) { release_device(node, node.string("device")); })
        .execute(execute_train);

} // namespace ff::neural
