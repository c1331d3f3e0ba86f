#include "train_splats.hpp"

#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/engine/splats.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace ff::neural {

namespace fe = ff::engine;

#if FF_HAVE_SPLATS

bool splats_available() { return true; }

namespace {

class SplatLearner final : public Learner {
public:
    SplatLearner(const TrainParams& params, const fe::ImageData& image, const fe::Device& device)
        : image_(image), device_(device) {
        config_.count = params.splat_count;
        options_.steps = params.options.steps;
        options_.seed = params.options.seed;
    }

    fe::ModelKind kind() const override { return fe::ModelKind::splats; }
    void start(const fe::Checkpoint* resume) override {
        trainer_ = std::make_shared<fe::SplatTrainer>(device_, config_, options_, image_,
                                                      resume ? &resume->splats : nullptr);
    }
    std::string description() const override { return std::to_string(config_.count) + " Gaussian splats"; }
    std::string rates() const override {
        char text[128];
        std::snprintf(text, sizeof text, "lr_position %g, lr_cholesky %g, lr_color %g", options_.lr_position,
                      options_.lr_cholesky, options_.lr_color);
        return text;
    }

    uint32_t step() const override { return trainer_->step(); }
    float train(uint32_t steps) override { return trainer_->train(steps); }
    bool diverged() const override { return trainer_->diverged(); }
    std::function<double()> evaluation() const override {
        return [trainer = trainer_] { return trainer->full_image_mse(); };
    }
    void render_into(uint32_t width, uint32_t height, float* rgb) const override {
        const std::vector<float> pixels = trainer_->render(width, height);
        std::copy(pixels.begin(), pixels.end(), rgb);
    }
    double gpu_seconds() const override { return trainer_->gpu_seconds(); }
    uint64_t device_bytes() const override { return trainer_->device_bytes(); }

    void save_state(fe::Checkpoint& checkpoint) const override {
        checkpoint.kind = fe::ModelKind::splats;
        checkpoint.splats = trainer_->state();
    }
    fe::ModelFile model_file() const override {
        fe::ModelFile file;
        file.kind = fe::ModelKind::splats;
        file.splats = trainer_->model();
        file.training.lr_mlp = options_.lr_color;
        return file;
    }
    void add_stats(nlohmann::json& stats, const fe::ModelFile& file) const override {
        stats["splats"] = config_.count;
        stats["parameter_count"] = file.splats.parameter_count();
    }

private:
    const fe::ImageData& image_;
    const fe::Device& device_;
    fe::SplatConfig config_;
    fe::SplatTrainOptions options_;
    std::shared_ptr<fe::SplatTrainer> trainer_; // shared with an evaluation a cancel abandons
};

} // namespace

std::unique_ptr<Learner> splat_learner(const TrainParams& params, const fe::ImageData& image,
                                       const fe::Device& device) {
    return std::make_unique<SplatLearner>(params, image, device);
}

std::vector<float> render_splat_model(const fe::Device& device, const fe::SplatModel& model,
                                      uint32_t width, uint32_t height) {
    return fe::render_splats(device, model, width, height);
}

#else

bool splats_available() { return false; }

std::unique_ptr<Learner> splat_learner(const TrainParams&, const fe::ImageData&, const fe::Device&) {
    throw Error("splat model not available in this build");
}

std::vector<float> render_splat_model(const fe::Device&, const fe::SplatModel&, uint32_t, uint32_t) {
    throw Error("splat model not available in this build");
}

#endif

} // namespace ff::neural
