// SplatTrainer: the device buffers of one splat fit and many steps per command buffer. A step is
// bin (count -> scan -> emit) -> rasterise forward + loss + backward -> Adam, with a barrier after
// each dispatch.
#include "splats_bins.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine {

using namespace detail;

namespace {
constexpr uint32_t kStepsPerSubmit = 1000; // loss log length
// The first submit of a trainer (a resumed one too) is short, so a pair buffer that proves too
// small grows early.
constexpr uint32_t kFirstSubmit = 50;
constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-15f;
constexpr float kMinScale = 0.3f; // pixels: below this a splat falls between pixel centres

ImageData checked(const ImageData& image, const SplatConfig& config, const SplatTrainOptions& o) {
    if (std::string p = config.validate(); !p.empty()) throw EngineError("invalid splat configuration: " + p);
    if (std::string p = o.validate(); !p.empty()) throw EngineError("invalid splat training options: " + p);
    uint64_t n = uint64_t(image.width) * image.height;
    if (n == 0) throw EngineError("image is empty (" + std::to_string(image.width) + "x" +
                                  std::to_string(image.height) + ")");
    if (n >= (1ull << 28)) throw EngineError("image is too large for the splat rasteriser");
    if (image.rgb.size() != n * 3)
        throw EngineError("image data holds " + std::to_string(image.rgb.size()) + " floats, " +
                          std::to_string(image.width) + "x" + std::to_string(image.height) +
                          " RGB needs " + std::to_string(n * 3));
    return image;
}

SplatModel start_splats(const SplatConfig& config, const SplatTrainOptions& options,
                        const ImageData& image, const SplatModel* start, const SplatTrainerState* resume) {
    if (resume) {
        start = &resume->model;
        for (const std::vector<float>* moments : {&resume->adam_m, &resume->adam_v})
            if (moments->size() != resume->model.params.size())
                throw EngineError("the resumed splat state holds " + std::to_string(moments->size()) +
                                  " Adam moments, its " + std::to_string(resume->model.params.size()) +
                                  " parameters need as many");
    }
    if (!start) return initial_splats(config, image, options.seed);
    require_valid_splats(*start);
    if (start->config.count != config.count || start->width != image.width ||
        start->height != image.height)
        throw EngineError("the starting splat model (" + std::to_string(start->config.count) + " splats, " +
                          std::to_string(start->width) + "x" + std::to_string(start->height) +
                          ") differs from the training configuration (" + std::to_string(config.count) +
                          " splats, " + std::to_string(image.width) + "x" + std::to_string(image.height) + ")");
    return *start;
}
} // namespace

class SplatTrainerImpl {
public:
    SplatTrainerImpl(const Device& device, const SplatConfig& config, const SplatTrainOptions& options,
                     const ImageData& image, const SplatModel* start, const SplatTrainerState* resume);

    float train(uint32_t steps);
    SplatModel model();
    SplatTrainerState state();
    double full_image_mse();
    uint64_t device_bytes() const;

    Device device_;
    uint32_t step_ = 0;
    bool diverged_ = false;
    double gpu_seconds_ = 0;
    bool submitted_ = false; // a first, short submit has run (see kFirstSubmit)

private:
    void record_step(VkCommandBuffer cb, uint32_t slot);
    void bind_raster();

    DeviceImpl& dev_;
    SplatConfig config_;
    SplatTrainOptions options_;
    ImageData image_;
    CommandRunner runner_;
    Buffer params_, adam_m_, adam_v_, grads_, target_, loss_log_, readback_;
    std::unique_ptr<SplatBins> bins_;
    DescriptorSet raster_set_, adam_set_;
};

SplatTrainerImpl::SplatTrainerImpl(const Device& device, const SplatConfig& config,
                                   const SplatTrainOptions& options, const ImageData& image,
                                   const SplatModel* start, const SplatTrainerState* resume)
    : device_(device), dev_(device.impl()), config_(config), options_(options),
      image_(checked(image, config, options)), runner_(dev_) {
    SplatModel initial = start_splats(config, options, image_, start, resume);
    const size_t floats = initial.params.size();
    auto local = [&](size_t bytes, const char* name) {
        return Buffer(dev_, bytes, MemoryKind::device_local, name);
    };
    params_ = local(floats * 4, "splat parameters");
    adam_m_ = local(floats * 4, "splat Adam m");
    adam_v_ = local(floats * 4, "splat Adam v");
    grads_ = local(floats * 4, "splat gradients");
    target_ = local(image_.rgb.size() * 4, "splat target image");
    loss_log_ = local(kStepsPerSubmit * 4, "splat loss log");
    readback_ = Buffer(dev_, (kStepsPerSubmit + 1) * 4, MemoryKind::readback, "splat loss readback");
    upload(dev_, runner_, params_, initial.params.data(), floats * 4);
    upload(dev_, runner_, target_, image_.rgb.data(), image_.rgb.size() * 4);
    fill_zero(runner_, {&adam_m_, &adam_v_, &grads_, &loss_log_});
    if (resume) {
        upload(dev_, runner_, adam_m_, resume->adam_m.data(), floats * 4);
        upload(dev_, runner_, adam_v_, resume->adam_v.data(), floats * 4);
        step_ = resume->step;
    }

    // Room for the initial pairs four times over: splats grow and move while training; a step that
    // needs more still runs (dropping the excess) and the buffer grows after its submit.
    uint64_t pairs = count_splat_pairs(initial.params, image_.width, image_.height);
    uint64_t capacity = std::max<uint64_t>({4 * pairs, 2ull * config.count, 1024});
    bins_ = std::make_unique<SplatBins>(dev_, runner_, params_, config.count, image_.width,
                                        image_.height, std::min(capacity, max_pair_capacity(dev_)));
    bind_raster();
    adam_set_ = DescriptorSet(dev_, dev_.kernel("splat_adam.comp", {}, 4),
                              {&params_, &adam_m_, &adam_v_, &grads_});
}

void SplatTrainerImpl::bind_raster() {
    raster_set_ = DescriptorSet(dev_, splat_raster_kernel(dev_, true),
                                {&params_, &bins_->offsets(), &bins_->pairs(), &target_, &grads_, &loss_log_});
}

void SplatTrainerImpl::record_step(VkCommandBuffer cb, uint32_t slot) {
    const uint32_t t = step_ + 1; // Adam's 1-based step
    SplatPush pc = bins_->push();
    pc.slot = slot;
    pc.lr_position = options_.lr_position;
    pc.lr_cholesky = options_.lr_cholesky;
    pc.lr_color = options_.lr_color;
    pc.beta1 = kBeta1;
    pc.beta2 = kBeta2;
    pc.epsilon = kEpsilon;
    pc.bias_correction1 = float(1.0 - std::pow(double(kBeta1), double(t)));
    pc.bias_correction2 = float(1.0 - std::pow(double(kBeta2), double(t)));
    pc.loss_scale = 2.0f / (3.0f * float(image_.width) * float(image_.height));
    pc.min_scale = kMinScale;
    pc.max_scale = float(std::max(image_.width, image_.height)) / 2.0f;

    bins_->record(cb);
    bins_->dispatch_tiles(cb, raster_set_, pc);
    compute_barrier(cb);
    adam_set_.dispatch(cb, pc.raw(), div_up(config_.count, 256));
    compute_barrier(cb);
    ++step_;
}

float SplatTrainerImpl::train(uint32_t steps) {
    float last = 0;
    diverged_ = false;
    while (steps > 0) {
        uint32_t n = std::min(steps, submitted_ ? kStepsPerSubmit : kFirstSubmit);
        submitted_ = true;
        GpuTimer timer(dev_, 2);
        runner_.run([&](VkCommandBuffer cb) {
            vkCmdFillBuffer(cb, loss_log_.handle(), 0, VK_WHOLE_SIZE, 0);
            compute_barrier(cb);
            timer.reset(cb);
            timer.stamp(cb, 0);
            for (uint32_t i = 0; i < n; ++i) record_step(cb, i);
            timer.stamp(cb, 1);
            VkBufferCopy losses{0, 0, VkDeviceSize(n) * 4};
            vkCmdCopyBuffer(cb, loss_log_.handle(), readback_.handle(), 1, &losses);
            VkBufferCopy peak{0, VkDeviceSize(kStepsPerSubmit) * 4, 4};
            vkCmdCopyBuffer(cb, bins_->stats().handle(), readback_.handle(), 1, &peak);
        });
        gpu_seconds_ += timer.seconds()[1];
        const float* log = static_cast<const float*>(readback_.mapped());
        for (uint32_t i = 0; i < n; ++i)
            if (!std::isfinite(log[i])) diverged_ = true;
        last = log[n - 1];
        uint32_t peak = static_cast<const uint32_t*>(readback_.mapped())[kStepsPerSubmit];
        if (peak > bins_->capacity()) { // some steps dropped pairs: give the next ones room
            bins_->grow(std::min<uint64_t>(2ull * peak, max_pair_capacity(dev_)));
            bind_raster();
        }
        steps -= n;
    }
    return last;
}

SplatModel SplatTrainerImpl::model() {
    SplatModel m;
    m.config = config_;
    m.width = image_.width;
    m.height = image_.height;
    m.params.resize(m.parameter_count());
    download(dev_, runner_, params_, m.params.data(), m.params.size() * 4);
    return m;
}

SplatTrainerState SplatTrainerImpl::state() {
    SplatTrainerState s;
    s.model = model();
    s.step = step_;
    s.adam_m.resize(s.model.params.size());
    s.adam_v.resize(s.model.params.size());
    download(dev_, runner_, adam_m_, s.adam_m.data(), s.adam_m.size() * 4);
    download(dev_, runner_, adam_v_, s.adam_v.data(), s.adam_v.size() * 4);
    return s;
}

double SplatTrainerImpl::full_image_mse() {
    std::vector<float> rgb = render_splats(device_, model(), image_.width, image_.height);
    double sum = 0;
    for (size_t i = 0; i < rgb.size(); ++i) {
        double d = double(rgb[i]) - double(image_.rgb[i]);
        sum += d * d;
    }
    return sum / double(rgb.size());
}

uint64_t SplatTrainerImpl::device_bytes() const {
    uint64_t n = bins_->device_bytes();
    for (const Buffer* b : {&params_, &adam_m_, &adam_v_, &grads_, &target_, &loss_log_, &readback_})
        n += b->allocated();
    return n;
}

// ---- public wrappers ------------------------------------------------------------------------

SplatTrainer::SplatTrainer(const Device& device, const SplatConfig& config,
                           const SplatTrainOptions& options, const ImageData& image,
                           const SplatModel* start)
    : impl_(std::make_unique<SplatTrainerImpl>(device, config, options, image, start, nullptr)) {}
SplatTrainer::SplatTrainer(const Device& device, const SplatConfig& config,
                           const SplatTrainOptions& options, const ImageData& image,
                           const SplatTrainerState* resume)
    : impl_(std::make_unique<SplatTrainerImpl>(device, config, options, image, nullptr, resume)) {}
SplatTrainer::~SplatTrainer() = default;
SplatTrainer::SplatTrainer(SplatTrainer&&) noexcept = default;
SplatTrainer& SplatTrainer::operator=(SplatTrainer&&) noexcept = default;

float SplatTrainer::train(uint32_t steps) { return impl_->train(steps); }
uint32_t SplatTrainer::step() const { return impl_->step_; }
SplatModel SplatTrainer::model() const { return impl_->model(); }
SplatTrainerState SplatTrainer::state() const { return impl_->state(); }
std::vector<float> SplatTrainer::render(uint32_t width, uint32_t height) const {
    return render_splats(impl_->device_, impl_->model(), width, height);
}
double SplatTrainer::full_image_mse() const { return impl_->full_image_mse(); }
double SplatTrainer::gpu_seconds() const { return impl_->gpu_seconds_; }
bool SplatTrainer::diverged() const { return impl_->diverged_; }
uint64_t SplatTrainer::device_bytes() const { return impl_->device_bytes(); }

} // namespace ff::engine
