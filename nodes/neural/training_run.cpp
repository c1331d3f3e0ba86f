#include "training_run.hpp"

#include "background_writer.hpp"
#include "output_size.hpp"
#include "psnr.hpp"
#include "snapshot_files.hpp"
#include "training_checkpoint.hpp"
#include "training_log.hpp"
#include "training_progress_text.hpp"
#include "training_schedule.hpp"

#include "common/cancellable_call.hpp"
#include "neural_images.hpp"
#include "number_text.hpp"

#include <opencv2/imgproc.hpp>

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

class TrainingRun {
public:
    TrainingRun(Node& node, const TrainParams& params, const fe::ImageData& image, const fe::Device& device,
                Learner& learner, double device_open_seconds)
        : node_(node), params_(params), image_(image), device_(device), learner_(learner),
          device_open_seconds_(device_open_seconds) {
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
        node_.log("training " + learner_.description() + " for " + std::to_string(schedule_.steps) +
                  " steps on " + device_.info().name + learner_.how());
        learner_.log_notes(node_);
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
    // A fresh trainer, or one resumed from this work's checkpoint. A checkpoint that cannot be
    // used (damaged, another format, not this run's) is a warning and a fresh start, never a failure.
    void start_trainer() {
        std::optional<TrainingCheckpoint> checkpoint;
        if (checkpoint_)
            checkpoint = usable_checkpoint(node_, *checkpoint_, learner_.kind(), image_.width, image_.height,
                                           schedule_.steps);
        if (checkpoint) {
            try {
                learner_.start(&checkpoint->engine);
                progress_ = std::move(checkpoint->progress);
                resumed_from_ = learner_.step();
                last_checkpoint_ = resumed_from_;
                return;
            } catch (const fe::EngineError& e) { // another model configuration
                warn_ignored_checkpoint(node_, *checkpoint_, e.what());
            }
        }
        learner_.start(nullptr);
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
        uint32_t done = learner_.step();
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
            // A cancel abandons an evaluation that may be long (full_image_mse) with the trainer:
            // before a chunk that ends in one, the checkpoint comes first, at a step whose log row
            // and snapshot are recorded, so a cancel during it loses this chunk at most.
            if (schedule_.is_eval(stop) && !quick_evaluation()) save_checkpoint_quietly(done);
            const Clock::time_point start = Clock::now();
            const float loss = learner_.train(stop - done);
            const double seconds = seconds_since(start);
            progress_.train_seconds += seconds;
            rate = seconds > 0 ? (stop - done) / seconds : 0;

            TrainingLogRow row{stop, loss, std::nullopt, rate, progress_.train_seconds};
            if (learner_.diverged() || !std::isfinite(loss)) {
                progress_.log.push_back(row);
                throw Error(divergence_message(learner_.diverged_step() ? learner_.diverged_step() : stop));
            }
            done = stop;
            progress_.final_loss = loss;
            progress_text_.add_loss(loss);
            if (schedule_.is_eval(done)) {
                const Clock::time_point eval_start = Clock::now();
                row.psnr = psnr_from_mse(full_image_mse(done));
                eval_seconds_ += seconds_since(eval_start);
                progress_.final_psnr = *row.psnr;
                progress_text_.add_eval(*row.psnr, done);
            }
            const std::string detail = progress_text_.text(loss);
            progress_.log.push_back(row);
            if (params_.log_interval > 0 && done % params_.log_interval == 0)
                node_.log("step " + std::to_string(done) + ": " + detail + ", " +
                          formatted("%.0f", rate) + " steps/s");
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
    // the call is abandoned with the trainer it holds (the loop checkpoints before a long one).
    // One that was quick the last time runs here: a cancel waits for it, and the loop then keeps
    // the chunk in its checkpoint instead of losing all since the last one.
    double full_image_mse(uint32_t done) {
        const Clock::time_point start = Clock::now();
        const double mse = quick_evaluation() ? learner_.evaluation()()
                                              : nodes::call_cancellable_result(node_, learner_.evaluation(), [&](double seconds) {
            node_.progress(done, schedule_.steps, "evaluating the full image, " + formatted("%.0f", seconds) + " s");
        });
        last_eval_seconds_ = seconds_since(start);
        return mse;
    }
    static constexpr double kQuickEvalSeconds = 0.5;
    bool quick_evaluation() const { return last_eval_seconds_ && *last_eval_seconds_ < kQuickEvalSeconds; }

    // Training stopped on a non-finite loss at `step`: where, the likely cause (a learning rate
    // too high for this model: the parameters overflow), and what is left to look at.
    std::string divergence_message(uint32_t step) const {
        std::string message = "training diverged at step " + std::to_string(step) +
                              " (the loss is not finite): the learning rate is probably too high (" +
                              learner_.rates() + "), so the parameters overflowed; try a lower one";
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
        learner_.save_state(c.engine);
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
        learner_.render_into(shown.width, shown.height, prediction.ptr<float>());
        // The feature image shows a dense grid's cells; a hash table has no picture of its own.
        cv::Mat feature = learner_.feature_image();
        if (!feature.empty()) {
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
        fe::ModelFile file = learner_.model_file();
        file.image_width = image_.width;
        file.image_height = image_.height;
        fe::TrainingInfo& t = file.training;
        t.steps = schedule_.steps;
        t.seed = params_.options.seed;
        t.device = device_.info().name;
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

        const double steps_per_second = progress_.train_seconds > 0 ? schedule_.steps / progress_.train_seconds : 0.0;
        nlohmann::json stats = {
            {"model", fe::model_kind_name(file.kind)},
            {"steps", schedule_.steps},
            // The graph's steps (and batch) when the CPU budget cut them (cpu_budget.hpp), else these.
            {"asked_steps", params_.asked_steps ? params_.asked_steps : schedule_.steps},
            {"cpu_budget", params_.cpu_budget_note},
            {"seed", params_.options.seed},
            {"train_seconds", progress_.train_seconds},
            {"setup_seconds", setup_seconds_},
            // Device time of the training steps from GPU timestamps (0: the device has none; on a
            // CPU driver it is the CPU's time running them).
            {"gpu_seconds", learner_.gpu_seconds()},
            {"device_open_seconds", device_open_seconds_},
            // Full-image PSNR evaluations, and snapshots (render and hand-off to the writer).
            {"eval_seconds", eval_seconds_},
            {"snapshot_seconds", snapshot_seconds_},
            // Everything the node did: setup, training, evaluations and snapshots.
            {"wall_seconds", seconds_since(start_)},
            {"steps_per_second", steps_per_second},
            {"final_loss", progress_.final_loss},
            {"final_psnr", t.final_psnr},
            {"device", device_.info().name},
            {"device_type", device_.info().type},
            {"device_bytes", learner_.device_bytes()},
            {"model_bytes", bytes.size()},
            {"image_width", image_.width},
            {"image_height", image_.height},
            {"snapshot_steps", schedule_.snapshot_steps},
            // Training went on from a checkpoint at this step (0: from the start); the times
            // above include the earlier run's training.
            {"resumed_from_step", resumed_from_},
        };
        if (params_.choice != ModelChoice::splats) {
            stats["batch"] = params_.options.batch;
            stats["asked_batch"] = params_.asked_batch ? params_.asked_batch : params_.options.batch;
        }
        learner_.add_stats(stats, file);
        node_.output_text("stats", stats.dump(2));
        node_.log("trained " + learner_.description() + " for " + std::to_string(schedule_.steps) + " steps in " +
                  formatted("%.2f", progress_.train_seconds) + " s (" + formatted("%.0f", steps_per_second) +
                  " steps/s), PSNR " + formatted("%.2f", t.final_psnr) + " dB, model " +
                  std::to_string(bytes.size()) + " bytes");
    }

    Node& node_;
    const TrainParams& params_;
    const fe::ImageData& image_;
    const fe::Device& device_;
    Learner& learner_;
    double device_open_seconds_; // opening the device (first use in the process) and reading the image
    TrainingSchedule schedule_;
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

} // namespace

void run_training(Node& node, const TrainParams& params, const fe::ImageData& image, const fe::Device& device,
                  Learner& learner, double device_open_seconds) {
    TrainingRun(node, params, image, device, learner, device_open_seconds).run();
}

} // namespace ff::neural
