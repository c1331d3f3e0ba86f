#include "field_learner.hpp"

#include "neural_images.hpp"
#include "number_text.hpp"

#include <fieldflow/engine/encoding_names.hpp>

#include <memory>

namespace ff::neural {
namespace {

namespace fe = ff::engine;

class FieldLearner final : public Learner {
public:
    FieldLearner(Node& node, const TrainParams& params, const fe::ImageData& image, const fe::Device& device)
        : node_(node), options_(params.options), image_(image), device_(device),
          config_(model_config_for_image(params, image.width, image.height)) {}

    fe::ModelKind kind() const override { return siren() ? fe::ModelKind::siren : fe::ModelKind::grid; }

    void start(const fe::Checkpoint* resume) override {
        if (resume) {
            trainer_ = std::make_shared<fe::Trainer>(device_, config_, options_, image_, &resume->trainer);
            return;
        }
        log_device_memory();
        trainer_ = std::make_shared<fe::Trainer>(device_, config_, options_, image_);
    }

    std::string description() const override { return fe::model_summary(config_); }

    std::string how() const override {
        return " (" + trainer_->kernel_path() + " kernels" +
               (trainer_->encoding_optimizer().starts_with("dense, lazy") ? ", lazy dense Adam on the encoding" : "") +
               (trainer_->image_parts() > 1 ? ", the image in " + std::to_string(trainer_->image_parts()) + " buffers" : "") +
               (trainer_->state_by_address() ? ", the encoding's training state by address" : "") + ")";
    }

    void log_notes(Node& node) const override {
        if (const std::string why = trainer_->kernel_path_reason(); !why.empty())
            node.log("warning: this device has tensor cores, but this model trains on the portable "
                     "kernels: " + why);
    }

    std::string rates() const override {
        if (siren())
            return "lr " + formatted("%g", options_.lr_mlp) + " with omega " + formatted("%g", config_.first_omega) +
                   " and " + std::to_string(config_.hidden_layers) + " hidden layers";
        return "lr_mlp " + formatted("%g", options_.lr_mlp) + ", lr_grid " + formatted("%g", options_.lr_grid);
    }

    uint32_t step() const override { return trainer_->step(); }
    float train(uint32_t steps) override { return trainer_->train(steps); }
    bool diverged() const override { return trainer_->diverged(); }
    uint32_t diverged_step() const override { return trainer_->diverged_step(); }
    std::function<double()> evaluation() const override {
        return [trainer = trainer_] { return trainer->full_image_mse(); };
    }
    void render_into(uint32_t width, uint32_t height, float* rgb) const override {
        trainer_->render_into(width, height, rgb);
    }
    // A dense grid's cells; a hash table has no picture of its own.
    cv::Mat feature_image() const override {
        if (config_.encoding.kind != fe::EncodingKind::dense_grid) return {};
        return ff::neural::feature_image(trainer_->model());
    }
    double gpu_seconds() const override { return trainer_->gpu_seconds(); }
    uint64_t device_bytes() const override { return trainer_->device_bytes(); }

    void save_state(fe::Checkpoint& checkpoint) const override {
        checkpoint.kind = kind();
        checkpoint.trainer = trainer_->state();
    }

    fe::ModelFile model_file() const override {
        fe::ModelFile file;
        file.kind = kind();
        file.model = trainer_->model();
        file.training.batch = options_.batch;
        file.training.lr_mlp = options_.lr_mlp;
        file.training.lr_grid = options_.lr_grid;
        file.training.kernel_path = trainer_->kernel_path();
        return file;
    }

    void add_stats(nlohmann::json& stats, const fe::ModelFile& file) const override {
        stats.update({
            {"lr_mlp", options_.lr_mlp},
            {"lr_grid", options_.lr_grid},
            {"lr_warmup", options_.lr_warmup},
            {"lr_decay_start", options_.lr_decay_start},
            {"lr_final_scale", options_.lr_final_scale},
            {"hidden_bias", options_.hidden_bias},
            {"grid_adam", options_.grid_adam == fe::GridAdam::dense ? "dense" : "sparse"},
            {"encoding_optimizer", trainer_->encoding_optimizer()},
            {"kernel_path", trainer_->kernel_path()},
            {"kernel_path_reason", trainer_->kernel_path_reason()},
            // Fixed-point encoding gradients: the same seed gives the same model bit for bit.
            {"fixed_point_gradients", device_.fixed_point_gradients()},
            {"parameter_count", file.model.parameter_count()},
            {"model_summary", fe::model_summary(config_)},
            {"encoding", std::string(fe::encoding_name(config_.encoding.kind))},
            {"grid_width", config_.grid_width},
            {"grid_height", config_.grid_height},
            {"grid_channels", config_.grid_channels},
            {"hidden_width", config_.hidden_width},
            {"hidden_layers", config_.hidden_layers},
            {"omega", config_.first_omega},
        });
    }

private:
    bool siren() const { return config_.encoding.kind == fe::EncodingKind::coords; }

    // What the run will hold on the device (the Trainer refuses one that cannot fit, with the same
    // figures), said up front for large images, where it matters.
    void log_device_memory() const {
        const fe::MemoryEstimate memory = fe::estimate_training_memory(
            device_, config_, options_, image_.width, image_.height, image_.source_bits);
        if (memory.total < (uint64_t(1) << 30)) return;
        node_.log("device memory: about " + memory.text() + " of " +
                  formatted("%.1f", double(memory.device_memory) / double(uint64_t(1) << 30)) + " GiB on " +
                  device_.info().name);
    }

    Node& node_;
    const fe::TrainOptions& options_;
    const fe::ImageData& image_;
    const fe::Device& device_;
    fe::ModelConfig config_;
    std::shared_ptr<fe::Trainer> trainer_; // shared with an evaluation a cancel abandons
};

} // namespace

std::unique_ptr<Learner> field_learner(Node& node, const TrainParams& params, const fe::ImageData& image,
                                       const fe::Device& device) {
    return std::make_unique<FieldLearner>(node, params, image, device);
}

} // namespace ff::neural
