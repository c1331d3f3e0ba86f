// Trainer: owns the device buffers of one training run and records many fused training steps per
// command buffer (train_step -> barrier -> optimizer (MLP + encoding Adam) -> barrier, per step).
#include "adam_schedule.hpp"
#include "encoding_state.hpp"
#include "gpu_model.hpp"
#include "encodings/encoding.hpp"
#include "sampling.hpp"
#include "training_plan.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace ff::engine {

namespace {
// Workgroups of 256 that the optimizer's encoding part and the settle pass loop with: enough to
// fill a large GPU, and within every device's maxComputeWorkGroupCount (65,535).
constexpr uint32_t kMaxEncodingGroups = 1024;
// The first run of a train() call is short and each next one 4x longer, up to
// kTrainerStepsPerSubmit: the device idles only while the first is recorded. With every run as
// long, a caller training in calls of 1,000 steps, like the Train node, would leave the device idle
// while each call's whole run is recorded; one long call trains as fast either way
// (bench/archive/RESULTS.md, "gradient rows summed by the optimizer").
constexpr uint32_t kFirstRunSteps = 50;

void check_image(const ImageData& image) {
    if (image.width == 0 || image.height == 0)
        throw EngineError("image is empty (" + std::to_string(image.width) + "x" +
                          std::to_string(image.height) + ")");
    uint64_t n = uint64_t(image.width) * image.height;
    if (n >= (1ull << 31)) throw EngineError("image is too large");
    if (image.rgb.size() != n * 3)
        throw EngineError("image data holds " + std::to_string(image.rgb.size()) + " floats, " +
                          std::to_string(image.width) + "x" + std::to_string(image.height) +
                          " RGB needs " + std::to_string(n * 3));
}

void check_options(const TrainOptions& o) {
    auto bad = [](const std::string& what) { throw EngineError("invalid training options: " + what); };
    if (o.batch == 0) bad("batch must be at least 1");
    if (!(o.lr_mlp > 0) || !(o.lr_grid > 0)) bad("learning rates must be positive");
    if (!(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1))
        bad("betas must lie in [0, 1)");
    if (!(o.epsilon >= 0)) bad("epsilon must be non-negative");
    if (!(o.lr_warmup >= 0 && o.lr_warmup <= 1)) bad("lr_warmup must lie in [0, 1]");
    if (!(o.lr_decay_start >= 0 && o.lr_decay_start <= 1)) bad("lr_decay_start must lie in [0, 1]");
    if (!(o.lr_final_scale > 0 && o.lr_final_scale <= 1)) bad("lr_final_scale must lie in (0, 1]");
    if (!std::isfinite(o.hidden_bias)) bad("hidden_bias must be finite");
}
} // namespace

using namespace detail;

class TrainerImpl {
public:
    TrainerImpl(const Device& device, const ModelConfig& config, const TrainOptions& options,
                const ImageData& image, const Model* start, const TrainerState* resume);
    ~TrainerImpl() {
        pipeline_.drain(); // a run left in flight by an error uses the buffers and queries below
        if (query_pool_) vkDestroyQueryPool(dev_.device(), query_pool_, nullptr);
    }

    float train(uint32_t steps);
    std::vector<DispatchTime> profile(uint32_t steps);
    std::vector<float> render(uint32_t w, uint32_t h);
    void render_into(uint32_t w, uint32_t h, float* rgb);
    double full_image_mse();
    Model model() {
        settle();
        return model_.download(dev_, runner_);
    }
    TrainerState state();
    uint64_t device_bytes() const;
    uint32_t image_parts() const { return image_buf_.layout().parts; }
    bool state_by_address() const { return state_layout_.by_address; }
    std::string encoding_optimizer() const {
        return grid_adam_ == 0 ? "sparse" : grid_adam_ == 1 ? "dense, eager" : "dense, lazy";
    }

    uint32_t step_ = 0;
    bool diverged_ = false;
    uint32_t diverged_step_ = 0;
    double gpu_seconds_ = 0;
    double render_gpu_seconds_ = 0;
    TrainTiling tiling_;

private:
    float lr_scale(uint32_t step) const;
    // With a timer, a timestamp follows each dispatch's barrier (stamps first + 1, first + 2, ...).
    void record_step(VkCommandBuffer cb, uint32_t slot, GpuTimer* timer = nullptr, uint32_t first = 0);

    Device device_; // keeps the device alive while the buffers below exist
    DeviceImpl& dev_;
    ModelConfig config_;
    TrainOptions options_;
    ImageData image_;
    CommandRunner runner_;
    PipelinedRunner pipeline_; // training runs (train()); runner_ for everything else
    // The encoding's cell count and learning-rate schedule (encoding_adam.glsl recomputes the
    // rates of skipped steps).
    void encoding_schedule(PushConstants& pc) const;
    // Brings every encoding cell to the current step (lazy dense Adam): before any read.
    void settle();
    void run_settle_pass(const PushConstants& pc);
    // The kernel of full_image_mse (the image buffer's depth picks its sampling).
    KernelRequest squared_error_request_;
    // Calls `chunk(first cell, words)` for runs of the encoding's records in order, words sized
    // for the run and zeroed: resuming and state() go through the records a run at a time, so the
    // host holds (and stages) a few MB at once, not the whole state (2.7 GB for a dense grid of a
    // 30000x30000 photo).
    template <class Chunk>
    void for_record_chunks(Chunk chunk) const;

    uint32_t groups_ = 0, cells_ = 0;
    uint32_t grid_adam_ = 0;         // optimizer.comp's GRID_ADAM: 0 sparse, 1 eager dense, 2 lazy dense
    uint32_t visit_parts_ = 1;       // optimizer.comp's VISIT_PARTS: invocations per sample finding its cells
    uint32_t optimizer_params_per_group_ = 8; // optimizer.comp's PARAMS_PER_GROUP (optimizer_params_per_group)
    uint32_t catch_up_limit_ = 0;
    uint32_t catch_up_last_ = 0;     // the last entry of catch_up_sums_
    uint32_t settled_step_ = 0;      // the step every cell was last brought to
    GpuModel model_;
    Buffer mlp_m_, mlp_v_, partials_, loss_partials_, loss_log_;
    EncodingStateLayout state_layout_;
    Buffer encoding_state_, catch_up_sums_, loss_readback_;
    Buffer deferred_inputs_; // the deferred sums' inputs (TrainTiling::deferred), if any
    TargetImage image_buf_;
    DescriptorSet train_set_, deferred_set_, optimizer_set_, settle_set_;
    // Kept between evaluations and snapshots, so that they allocate nothing (RenderBandResources).
    RenderBandResources eval_render_, snapshot_render_;
    Buffer eval_partials_, eval_readback_;
    DescriptorSet eval_set_;
    VkBuffer eval_set_for_ = VK_NULL_HANDLE; // the band buffer eval_set_ binds (eval_render_ keeps it:
                                             // a trainer's image size, hence its bands, never change)
    VkQueryPool query_pool_ = VK_NULL_HANDLE;
    double timestamp_period_ns_ = 0;
};

static Model start_model(const ModelConfig& config, const TrainOptions& options, const Model* start,
                         const TrainerState* resume) {
    require_valid(config);
    if (resume) start = &resume->model;
    if (!start) return initial_model(config, options.seed, options.hidden_bias);
    const char* what = resume ? "the resumed state's model" : "the starting model";
    if (!(start->config == config))
        throw EngineError(std::string(what) + "'s configuration differs from the training configuration");
    require_consistent(*start);
    if (resume) {
        auto check = [](const std::vector<float>& moments, size_t need, const char* name) {
            if (moments.size() != need)
                throw EngineError(std::string("the resumed state's ") + name + " holds " +
                                  std::to_string(moments.size()) + " floats, the model needs " +
                                  std::to_string(need));
        };
        check(resume->mlp_m, start->mlp.size(), "MLP Adam m");
        check(resume->mlp_v, start->mlp.size(), "MLP Adam v");
        check(resume->encoding_m, start->encoding_params.size(), "encoding Adam m");
        check(resume->encoding_v, start->encoding_params.size(), "encoding Adam v");
    }
    return *start;
}

// The image's size and depth, checked, and the run's device memory against the device's before
// anything is allocated; its pixels live on the device only (the trainer keeps no host copy: at
// 8192x8192 that would be 805 MB).
static ImageData checked_shape(const Device& device, const ImageData& image, const ModelConfig& config,
                               const TrainOptions& o) {
    check_image(image);
    check_options(o);
    require_valid(config);
    if (config.output_dims != 3)
        throw EngineError("training on an RGB image needs output_dims = 3, not " +
                          std::to_string(config.output_dims));
    require_fits(estimate_training_memory(device, config, o, image.width, image.height, image.source_bits),
                 device.info().name);
    ImageData shape;
    shape.width = image.width;
    shape.height = image.height;
    shape.source_bits = image.source_bits;
    return shape;
}

template <class Chunk>
void TrainerImpl::for_record_chunks(Chunk chunk) const {
    constexpr uint64_t kCellsPerChunk = uint64_t(1) << 18; // 12 MB of records for the dense grid
    std::vector<uint32_t> words;
    for (uint64_t first = 0; first < cells_; first += kCellsPerChunk) {
        const uint64_t count = std::min<uint64_t>(kCellsPerChunk, cells_ - first);
        words.assign(count * state_layout_.record_words(), 0);
        chunk(first, words);
    }
}

TrainerImpl::TrainerImpl(const Device& device, const ModelConfig& config,
                         const TrainOptions& options, const ImageData& image, const Model* start,
                         const TrainerState* resume)
    : device_(device), dev_(device.impl()), config_(config), options_(options),
      image_(checked_shape(device, image, config, options)), runner_(dev_), pipeline_(dev_),
      model_(dev_, runner_, start_model(config, options, start, resume), options.batch, options.kernels) {
    const auto& limits = dev_.properties().limits;
    TrainingPlan plan = plan_training(dev_.features(), config, options, image.width, image.height, image.source_bits);
    tiling_ = plan.tiling;
    groups_ = plan.groups;
    grid_adam_ = plan.grid_adam;
    optimizer_params_per_group_ = plan.optimizer_params_per_group;
    visit_parts_ = plan.visit_parts;
    state_layout_ = plan.state_layout;
    squared_error_request_ = plan.squared_error;
    const detail::EncodingDescriptor& encoding = encoding_of(config);
    cells_ = uint32_t(encoding.cells(config));
    const MlpLayout& L = model_.layout;
    auto local = [&](size_t bytes, const char* name) {
        return Buffer(dev_, bytes, MemoryKind::device_local, name);
    };
    mlp_m_ = local(L.total * 4, "MLP Adam m");
    mlp_v_ = local(L.total * 4, "MLP Adam v");
    partials_ = local(size_t(partial_rows(tiling_, groups_)) * L.total * 4, "MLP gradient partials");
    loss_partials_ = local(size_t(partial_rows(tiling_, groups_)) * 4, "loss partials");
    loss_log_ = local(PipelinedRunner::kSlots * kTrainerStepsPerSubmit * 4, "loss log");
    catch_up_limit_ = catch_up_limit(options.beta1, options.beta2);
    if (grid_adam_ == 2) {
        const std::vector<float>& sums = plan.catch_up_sums;
        catch_up_last_ = uint32_t(sums.size() / kCatchUpStride - 1);
        catch_up_sums_ = local(sums.size() * 4, "encoding Adam catch-up sums");
        upload(dev_, runner_, catch_up_sums_, sums.data(), sums.size() * 4);
    }
    encoding_state_ = encoding_state_buffer(dev_, state_layout_);
    if (tiling_.deferred.groups)
        deferred_inputs_ = local(tiling_.deferred.input_bytes(options.batch), "deferred encoding gradients");
    loss_readback_ = Buffer(dev_, PipelinedRunner::kSlots * kTrainerStepsPerSubmit * 4, MemoryKind::readback, "loss readback");
    image_buf_ = TargetImage(dev_, runner_, plan.image, image.rgb);
    fill_zero(runner_, {&mlp_m_, &mlp_v_, &partials_, &loss_partials_, &loss_log_, &encoding_state_});
    if (resume) {
        upload(dev_, runner_, mlp_m_, resume->mlp_m.data(), resume->mlp_m.size() * 4);
        upload(dev_, runner_, mlp_v_, resume->mlp_v.data(), resume->mlp_v.size() * 4);
        step_ = resume->step;
        // The state is settled (state() settles first): every cell has taken every step.
        for_record_chunks([&](uint64_t first, std::vector<uint32_t>& words) {
            for (uint64_t cell = first; cell < first + words.size() / state_layout_.record_words(); ++cell) {
                uint32_t* record = &words[(cell - first) * state_layout_.record_words()];
                for (uint32_t f = 0; f < state_layout_.features; ++f) {
                    const uint64_t i = cell * state_layout_.features + f;
                    std::memcpy(&record[state_layout_.m(0, f)], &resume->encoding_m[i], 4);
                    std::memcpy(&record[state_layout_.v(0, f)], &resume->encoding_v[i], 4);
                }
                record[state_layout_.stamp(0)] = step_;
            }
            upload(dev_, runner_, encoding_state_, words.data(), words.size() * 4,
                   first * state_layout_.record_words() * 4);
        });
    }
    settled_step_ = step_;

    // Every kernel the trainer runs, built side by side (on a first run, compiling them is most
    // of the setup).
    const KernelRequest& train_request = plan.train;
    const KernelRequest& optimizer_request = plan.optimizer;
    const bool fp16_copy = tiling_.weights_in_memory();
    const std::optional<KernelRequest>& deferred_request = plan.deferred;
    dev_.prepare_kernels(plan.requests());
    const Kernel& train = dev_.kernel(train_request);
    const Kernel& optimizer = dev_.kernel(optimizer_request);
    // The state is bound twice: as floats or 16-byte words, and as uints (encoding_state.glsl).
    std::vector<const Buffer*> train_buffers =
        model_.bindings(tiling_, image_buf_.after({&encoding_state_, &encoding_state_, &partials_, &loss_partials_}));
    if (tiling_.deferred.groups) {
        train_buffers.push_back(&deferred_inputs_);
        deferred_set_ = DescriptorSet(dev_, dev_.kernel(*deferred_request),
                                      {&encoding_state_, &encoding_state_, &deferred_inputs_});
    }
    train_set_ = DescriptorSet(dev_, train, train_buffers);
    std::vector<const Buffer*> optimizer_buffers = {&model_.mlp, &mlp_m_, &mlp_v_, &partials_,
                                                    &loss_partials_, &loss_log_, &model_.encoding,
                                                    &encoding_state_, &encoding_state_,
                                                    grid_adam_ == 2 ? &catch_up_sums_ : &encoding_state_};
    if (fp16_copy) optimizer_buffers.push_back(&model_.mlp16);
    optimizer_set_ = DescriptorSet(dev_, optimizer, optimizer_buffers);
    if (grid_adam_ == 2) {
        settle_set_ = DescriptorSet(dev_, dev_.kernel(*plan.settle),
                                    {&model_.encoding, &encoding_state_, &catch_up_sums_});
    }
    if (state_layout_.parameters) { // the records take the parameters the model starts from
        PushConstants pc;
        pc.cells = cells_;
        pc.count = 1; // encoding_settle.comp: into the records
        run_settle_pass(pc);
    }

    if (limits.timestampComputeAndGraphics && dev_.properties().limits.timestampPeriod > 0) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2 * PipelinedRunner::kSlots; // a start and an end per pipeline slot
        vk_check(vkCreateQueryPool(dev_.device(), &qi, nullptr, &query_pool_), "creating a query pool");
        timestamp_period_ns_ = limits.timestampPeriod;
    }
}

float TrainerImpl::lr_scale(uint32_t step) const { return float(learning_rate_scale(options_, step)); }

void TrainerImpl::record_step(VkCommandBuffer cb, uint32_t slot, GpuTimer* timer, uint32_t first) {
    uint32_t t = step_ + 1; // Adam's 1-based step
    uint64_t seed = options_.seed;
    PushConstants pc;
    pc.grid_w = config_.grid_width;
    pc.grid_h = config_.grid_height;
    pc.width = image_.width;
    pc.height = image_.height;
    pc.batch = options_.batch;
    pc.step = step_;
    pc.seed_lo = uint32_t(seed);
    pc.seed_hi = uint32_t(seed >> 32);
    pc.beta1 = options_.beta1;
    pc.beta2 = options_.beta2;
    pc.epsilon = options_.epsilon;
    pc.bias_correction1 = float(1.0 - std::pow(double(options_.beta1), double(t)));
    pc.bias_correction2 = float(1.0 - std::pow(double(options_.beta2), double(t)));
    pc.slot = slot;
    encoding_schedule(pc);
    float scale = lr_scale(step_);

    record_train_dispatches(cb, dev_, train_set_, pc, tiling_, groups_);
    if (timer) timer->stamp(cb, ++first);
    if (tiling_.deferred.groups) {
        record_deferred_sums(cb, deferred_set_, pc, tiling_);
        if (timer) timer->stamp(cb, ++first);
    }
    pc.count = partial_rows(tiling_, groups_);
    pc.lr = options_.lr_mlp * scale;
    pc.lr_grid = options_.lr_grid * scale;
    // optimizer.comp: optimizer_params_per_group_ MLP parameters per workgroup, then workgroups of
    // 256 for the encoding: one invocation per cell (eager: as many workgroups as one dispatch may
    // have), or visit_parts_ invocations per sample of this step (or, lazy, of the next), looping.
    const uint32_t sample_groups =
        cells_ == 0 ? 0u : uint32_t(std::min<uint64_t>(div_up(uint64_t(options_.batch) * visit_parts_, 256), kMaxEncodingGroups));
    pc.encoding_groups = grid_adam_ == 1 ? std::min(div_up(cells_, 256), 65535u) : sample_groups;
    optimizer_set_.dispatch(cb, pc, div_up(model_.layout.total, optimizer_params_per_group_) + pc.encoding_groups);
    compute_barrier(cb);
    if (timer) timer->stamp(cb, ++first);
    ++step_;
}

// Runs of kFirstRunSteps steps growing to kTrainerStepsPerSubmit, each recorded while the device
// runs the one before (two in flight: PipelinedRunner). Each pipeline slot has its own part of the
// loss log, of its read-back buffer and of the timestamp queries, so a run's results stay until
// the host reads them.
float TrainerImpl::train(uint32_t steps) {
    struct Run {
        uint32_t first_step = 0, steps = 0; // the step whose loss lands in the slot's first entry
        bool pending = false;
    };
    Run runs[PipelinedRunner::kSlots];
    float last = 0;
    diverged_ = false;
    diverged_step_ = 0;
    // Waits for a slot's run and takes its results: GPU time, divergence, the last loss.
    auto collect = [&](uint32_t slot) {
        Run& run = runs[slot];
        if (!run.pending) return;
        pipeline_.wait(slot);
        run.pending = false;
        if (query_pool_) {
            uint64_t ts[2] = {0, 0};
            if (vkGetQueryPoolResults(dev_.device(), query_pool_, 2 * slot, 2, sizeof ts, ts, sizeof(uint64_t),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) == VK_SUCCESS &&
                ts[1] > ts[0])
                gpu_seconds_ += double(ts[1] - ts[0]) * timestamp_period_ns_ * 1e-9;
        }
        const float* log = static_cast<const float*>(loss_readback_.mapped()) + slot * kTrainerStepsPerSubmit;
        for (uint32_t i = 0; i < run.steps; ++i)
            if (!std::isfinite(log[i]) && !diverged_) {
                diverged_ = true;
                diverged_step_ = run.first_step + i;
            }
        last = log[run.steps - 1];
    };
    uint32_t submitted = 0, run_steps = kFirstRunSteps;
    while (steps > 0) {
        const uint32_t n = std::min(steps, run_steps);
        run_steps = std::min(run_steps * 4, kTrainerStepsPerSubmit);
        const uint32_t slot = submitted++ % PipelinedRunner::kSlots;
        collect(slot); // the oldest run in flight, so results are taken in order
        runs[slot] = {step_ + 1, n, true};
        pipeline_.submit(slot, [&](VkCommandBuffer cb) {
            compute_barrier(cb);
            if (query_pool_) {
                vkCmdResetQueryPool(cb, query_pool_, 2 * slot, 2);
                // Written once the work before it is done: the run before this one may still be
                // on the device when this one starts, and its time must not be counted twice.
                vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, 2 * slot);
            }
            for (uint32_t i = 0; i < n; ++i) record_step(cb, slot * kTrainerStepsPerSubmit + i);
            if (query_pool_)
                vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, 2 * slot + 1);
            const VkDeviceSize offset = VkDeviceSize(slot) * kTrainerStepsPerSubmit * 4;
            VkBufferCopy region{offset, offset, VkDeviceSize(n) * 4};
            vkCmdCopyBuffer(cb, loss_log_.handle(), loss_readback_.handle(), 1, &region);
        });
        steps -= n;
    }
    for (uint32_t k = 0; k < PipelinedRunner::kSlots; ++k) collect((submitted + k) % PipelinedRunner::kSlots);
    return last;
}

TrainerState TrainerImpl::state() {
    TrainerState s;
    s.model = model(); // settles the encoding's parameters and moments first
    s.step = step_;
    s.mlp_m.resize(s.model.mlp.size());
    s.mlp_v.resize(s.model.mlp.size());
    s.encoding_m.resize(s.model.encoding_params.size());
    s.encoding_v.resize(s.model.encoding_params.size());
    download(dev_, runner_, mlp_m_, s.mlp_m.data(), s.mlp_m.size() * 4);
    download(dev_, runner_, mlp_v_, s.mlp_v.data(), s.mlp_v.size() * 4);
    for_record_chunks([&](uint64_t first, std::vector<uint32_t>& words) {
        download(dev_, runner_, encoding_state_, words.data(), words.size() * 4,
                 first * state_layout_.record_words() * 4);
        for (uint64_t cell = first; cell < first + words.size() / state_layout_.record_words(); ++cell) {
            const uint32_t* record = &words[(cell - first) * state_layout_.record_words()];
            for (uint32_t f = 0; f < state_layout_.features; ++f) {
                const uint64_t i = cell * state_layout_.features + f;
                std::memcpy(&s.encoding_m[i], &record[state_layout_.m(0, f)], 4);
                std::memcpy(&s.encoding_v[i], &record[state_layout_.v(0, f)], 4);
            }
        }
    });
    return s;
}

std::vector<DispatchTime> TrainerImpl::profile(uint32_t steps) {
    steps = std::min(steps, kTrainerStepsPerSubmit);
    if (steps == 0) return {};
    std::vector<const char*> names = {"train_step", "optimizer"};
    if (tiling_.deferred.groups) names.insert(names.begin() + 1, "deferred_sums");
    const uint32_t n = uint32_t(names.size()); // timestamps a step: one after each dispatch
    GpuTimer timer(dev_, 1 + n * steps);
    runner_.run([&](VkCommandBuffer cb) {
        compute_barrier(cb);
        timer.reset(cb);
        timer.stamp(cb, 0);
        for (uint32_t i = 0; i < steps; ++i) record_step(cb, i, &timer, n * i);
    });
    std::vector<double> t = timer.seconds();
    std::vector<double> sum(n, 0.0);
    for (uint32_t i = 0; i < steps; ++i)
        for (uint32_t k = 0; k < n; ++k) sum[k] += t[n * i + k + 1] - t[n * i + k];
    std::vector<DispatchTime> out;
    for (uint32_t k = 0; k < n; ++k) out.push_back({names[k], sum[k] / steps * 1e6});
    return out;
}

void TrainerImpl::encoding_schedule(PushConstants& pc) const {
    pc.cells = cells_;
    pc.log2_beta1 = std::log2(options_.beta1);
    pc.log2_beta2 = std::log2(options_.beta2);
    pc.log2_lr_final_scale = std::log2(options_.lr_final_scale);
    pc.steps_total = options_.steps;
    pc.catch_up_limit = catch_up_limit_;
    pc.catch_up_last = catch_up_last_;
    pc.lr_grid_base = options_.lr_grid;
    pc.lr_warmup = options_.lr_warmup;
    pc.lr_decay_start = options_.lr_decay_start;
    pc.lr_final_scale = options_.lr_final_scale;
}

void TrainerImpl::settle() {
    if (grid_adam_ != 2 || settled_step_ == step_) return; // the lazy form needs cells
    PushConstants pc;
    pc.step = step_;
    pc.beta1 = options_.beta1;
    pc.beta2 = options_.beta2;
    pc.epsilon = options_.epsilon;
    // The gradients a record still holds are fixed-point sums in units set by the batch and the
    // cell's group (encoding_state.glsl).
    pc.batch = options_.batch;
    pc.grid_w = config_.grid_width;
    pc.grid_h = config_.grid_height;
    encoding_schedule(pc);
    run_settle_pass(pc);
    settled_step_ = step_;
}

// encoding_settle.comp over every cell, between barriers.
void TrainerImpl::run_settle_pass(const PushConstants& pc) {
    runner_.run([&](VkCommandBuffer cb) {
        compute_barrier(cb);
        settle_set_.dispatch(cb, pc, std::min(div_up(cells_, 256), kMaxEncodingGroups));
        compute_barrier(cb);
    });
}

std::vector<float> TrainerImpl::render(uint32_t w, uint32_t h) {
    settle();
    return render_buffers(dev_, runner_, model_, w, h, &render_gpu_seconds_,
                          &snapshot_render_);
}

void TrainerImpl::render_into(uint32_t w, uint32_t h, float* rgb) {
    settle();
    render_buffers_into(dev_, runner_, model_, w, h, rgb, &render_gpu_seconds_, &snapshot_render_);
}

// Rendered band by band and compared on the device with the training target (the image buffer:
// 8 or 16 bits per channel as trained), so only one float per 256 pixels comes back.

double TrainerImpl::full_image_mse() {
    settle();
    const Kernel& kernel = dev_.kernel(squared_error_request_);
    double sum = 0;
    uint32_t groups = 0;
    RenderBandUse compare;
    compare.record = [&](VkCommandBuffer cb, const Buffer& out, uint32_t first, uint32_t rows) {
        if (eval_set_for_ != out.handle()) { // the band buffer is the largest band's size
            const VkDeviceSize most = div_up(uint32_t(out.size() / 12), 256) * VkDeviceSize(4);
            eval_partials_ = Buffer(dev_, most, MemoryKind::device_local, "squared error partials");
            eval_readback_ = Buffer(dev_, most, MemoryKind::readback, "squared error readback");
            eval_set_ = DescriptorSet(dev_, kernel, image_buf_.after({&out, &eval_partials_}));
            eval_set_for_ = out.handle();
        }
        const Buffer& partials = eval_partials_;
        const Buffer& readback = eval_readback_;
        const DescriptorSet& set = eval_set_;
        PushConstants pc;
        pc.width = image_.width;
        pc.height = image_.height;
        pc.first_row = first;
        pc.count = rows * image_.width;
        groups = div_up(pc.count, 256);
        set.dispatch(cb, pc, groups);
        compute_barrier(cb);
        VkBufferCopy region{0, 0, VkDeviceSize(groups) * 4};
        vkCmdCopyBuffer(cb, partials.handle(), readback.handle(), 1, &region);
    };
    compare.done = [&](uint32_t, uint32_t) {
        const float* p = static_cast<const float*>(eval_readback_.mapped());
        for (uint32_t g = 0; g < groups; ++g) sum += p[g];
    };
    render_bands(dev_, runner_, model_, image_.width, image_.height, compare,
                 &render_gpu_seconds_, &eval_render_);
    return sum / (double(image_.width) * image_.height * 3);
}

uint64_t TrainerImpl::device_bytes() const {
    uint64_t n = 0;
    for (const Buffer* b : {&model_.mlp, &model_.encoding, &mlp_m_, &mlp_v_, &partials_, &loss_partials_,
                            &loss_log_, &encoding_state_, &deferred_inputs_,
                            &catch_up_sums_,
                            &loss_readback_, &eval_render_.out, &eval_render_.readback,
                            &snapshot_render_.out, &snapshot_render_.readback, &eval_partials_, &eval_readback_})
        n += b->allocated();
    return n + image_buf_.allocated();
}

// ---- public wrappers ------------------------------------------------------------------------

Trainer::Trainer(const Device& device, const ModelConfig& config, const TrainOptions& options,
                 const ImageData& image, const Model* start)
    : impl_(std::make_unique<TrainerImpl>(device, config, options, image, start, nullptr)) {}
Trainer::Trainer(const Device& device, const ModelConfig& config, const TrainOptions& options,
                 const ImageData& image, const TrainerState* resume)
    : impl_(std::make_unique<TrainerImpl>(device, config, options, image, nullptr, resume)) {}
Trainer::~Trainer() = default;
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;

float Trainer::train(uint32_t steps) { return impl_->train(steps); }
uint32_t Trainer::step() const { return impl_->step_; }
Model Trainer::model() const { return impl_->model(); }
TrainerState Trainer::state() const { return impl_->state(); }
std::vector<float> Trainer::render(uint32_t w, uint32_t h) const { return impl_->render(w, h); }
void Trainer::render_into(uint32_t w, uint32_t h, float* rgb) const { impl_->render_into(w, h, rgb); }
double Trainer::full_image_mse() const { return impl_->full_image_mse(); }
uint64_t Trainer::device_bytes() const { return impl_->device_bytes(); }
uint32_t Trainer::image_parts() const { return impl_->image_parts(); }
bool Trainer::state_by_address() const { return impl_->state_by_address(); }
bool Trainer::diverged() const { return impl_->diverged_; }
uint32_t Trainer::diverged_step() const { return impl_->diverged_step_; }
double Trainer::gpu_seconds() const { return impl_->gpu_seconds_; }
uint32_t Trainer::tile_size() const { return impl_->tiling_.tile; }
uint32_t Trainer::local_gradient_cells() const { return impl_->tiling_.local_gradient_cells; }
uint32_t Trainer::deferred_gradient_cells() const { return impl_->tiling_.deferred.cells; }
std::string Trainer::kernel_path() const { return impl_->tiling_.coopmat ? "coopmat" : "portable"; }
std::string Trainer::kernel_path_reason() const { return impl_->tiling_.portable_reason; }
std::string Trainer::encoding_optimizer() const { return impl_->encoding_optimizer(); }
double Trainer::last_render_gpu_seconds() const { return impl_->render_gpu_seconds_; }
std::vector<DispatchTime> Trainer::profile_dispatches(uint32_t steps) { return impl_->profile(steps); }

} // namespace ff::engine
