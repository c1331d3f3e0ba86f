// The one training loop of the training ops (Train, TrainSiren, TrainSplats): it drives a model's
// engine trainer in chunks of about half a second (live progress, prompt cancellation), stops at
// the schedule's evaluation and snapshot steps, keeps the training log, checkpoints the work and
// resumes it after an interrupt, and outputs the model file and the statistics. What differs
// between the models is behind Learner.
#pragma once

#include "train_params.hpp"

#include <fieldflow/engine/checkpoint_file.hpp>
#include <fieldflow/engine/engine.hpp>
#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace ff::neural {

// One model's engine trainer, as the training loop drives it.
class Learner {
public:
    virtual ~Learner() = default;
    virtual ff::engine::ModelKind kind() const = 0;
    // Builds the engine's trainer: a fresh one, or one continuing `resume` (its state for this
    // kind). Throws ff::engine::EngineError when `resume` belongs to another configuration.
    virtual void start(const ff::engine::Checkpoint* resume) = 0;
    // What trains, for the log: "SIREN 64x3 (omega 30)", "10000 Gaussian splats".
    virtual std::string description() const = 0;
    // How it trains, logged after "on DEVICE" (" (portable kernels)"), and any warning about it.
    virtual std::string how() const { return ""; }
    virtual void log_notes(Node&) const {}
    // The rates a divergence names ("lr_mlp 0.03, lr_grid 0.03").
    virtual std::string rates() const = 0;

    virtual uint32_t step() const = 0;
    virtual float train(uint32_t steps) = 0; // the loss of the last step run
    virtual bool diverged() const = 0;
    virtual uint32_t diverged_step() const { return 0; } // 0: not known more closely than the chunk
    // The full image's MSE, as a call that may outlive the run: the loop makes it on a thread of
    // its own and abandons it on a cancel, so it owns what it reads (the engine's trainer by
    // shared_ptr; common/cancellable_call.hpp's rules).
    virtual std::function<double()> evaluation() const = 0;
    virtual void render_into(uint32_t width, uint32_t height, float* rgb) const = 0;
    virtual cv::Mat feature_image() const { return {}; } // a snapshot's picture of the encoding, if any
    virtual double gpu_seconds() const = 0;
    virtual uint64_t device_bytes() const = 0;

    // This trainer's state into `checkpoint` (its kind and state fields).
    virtual void save_state(ff::engine::Checkpoint& checkpoint) const = 0;
    // The trained model (kind, parameters and the training fields only this model knows; the
    // loop fills in steps, seed, device, loss, PSNR and time).
    virtual ff::engine::ModelFile model_file() const = 0;
    // The statistics only this model has (its configuration, rates, kernels).
    virtual void add_stats(nlohmann::json& stats, const ff::engine::ModelFile& file) const = 0;
};

// Trains `learner` on `image` with `params` (already fitted to the device's CPU budget), writing
// the node's outputs "model" and "stats" and its side files. `device_open_seconds`: opening the
// device and reading the image, for the statistics.
void run_training(Node& node, const TrainParams& params, const ff::engine::ImageData& image,
                  const ff::engine::Device& device, Learner& learner, double device_open_seconds);

} // namespace ff::neural
