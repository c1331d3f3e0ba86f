// Helpers shared by the trainer, render() and the test entry points: staging transfers, a model's
// parameters on the device, and the kernels specialised for a model.
#pragma once

#include "encoding_state.hpp"
#include "model_layout.hpp"
#include "target_image.hpp"
#include "vulkan/vk_device.hpp"

#include <functional>
#include <memory>

namespace ff::engine::detail {

// Training steps a trainer records in one command buffer: its loss log holds this many a pipeline
// slot (one submit + wait costs ~60 us).
inline constexpr uint32_t kTrainerStepsPerSubmit = 1000;

// Copies through a temporary staging buffer (the destination / source stays device-local), to or
// from `bytes` bytes at an offset of the device buffer; a copy larger than the device's cap on
// buffers (max_buffer_bytes) goes through one that size, a part at a time (a buffer reached by
// address, BufferAccess::address, may exceed the cap).
void upload(DeviceImpl& device, CommandRunner& runner, const Buffer& dst, const void* data,
            size_t bytes, VkDeviceSize dst_offset = 0);
void download(DeviceImpl& device, CommandRunner& runner, const Buffer& src, void* data,
              size_t bytes, VkDeviceSize src_offset = 0);
void fill_zero(CommandRunner& runner, const std::vector<const Buffer*>& buffers);

// The encoding's training state on the device: a storage buffer, or where it is larger than one
// may be (a 2^19-entry hash table's state on lavapipe's 128 MB) a buffer the kernels reach by its
// address; sets layout.by_address to say which.
Buffer encoding_state_buffer(DeviceImpl& device, EncodingStateLayout& layout);
// The state's layout in a kernel's defines (encoding_state.glsl): its record size (model_defines()
// gives the one without the parameters) and where the kernel finds it.
void use_state_layout(Defines& defines, const EncodingStateLayout& layout);

// A model's learnable parameters in device-local buffers.
struct GpuModel {
    ModelConfig config;
    MlpLayout layout;
    Buffer mlp;  // Model::mlp
    Buffer encoding; // Model::encoding_params
    // An fp16 copy of `mlp` for tensor-core kernels that read their weights from device memory
    // (TrainTiling::weights_in_shared false): those of rendering (batch 0) or of training
    // `training_batch` samples a step, whose tiling may differ (small MLPs on large batches);
    // empty otherwise. The optimizer keeps it current (optimizer.comp's MLP_FP16_COPY).
    Buffer mlp16;
    // The kernel choices a measurement fixed (TrainOptions::kernels): its renders take them too.
    KernelOverrides kernels;
    GpuModel(DeviceImpl& device, CommandRunner& runner, const Model& model, uint32_t training_batch = 0,
             const KernelOverrides& kernels = {});
    Model download(DeviceImpl& device, CommandRunner& runner) const;
    // The model's buffers as a kernel of `tiling` binds them: mlp, encoding, then `more`, then mlp16
    // where the kernel reads its weights from memory (add_weight_defines).
    std::vector<const Buffer*> bindings(const TrainTiling& tiling, std::vector<const Buffer*> more) const;
};

// Binds the kernel's fp16 weights (mlp_coopmat.glsl's CM_WEIGHTS_BINDING) after its `bindings`
// when the tiling reads them from memory; returns the kernel's binding count.
uint32_t add_weight_defines(Defines& defines, const TrainTiling& tiling, uint32_t bindings);

// Checks a Model's vector sizes against its config; throws EngineError saying what differs.
void require_consistent(const Model& model);

// The training tile for a model on this device: the tensor-core kernels where the device runs them
// and the model fits their shared memory, else the portable kernels. A training batch (0: any,
// as for rendering) can shrink a tensor-core workgroup (choose_coopmat_tiling); the weights stay
// where they are for every batch.
TrainTiling train_tiling_for(const DeviceFeatures& device, const ModelConfig& config, uint32_t batch = 0,
                             const KernelOverrides& overrides = {});

// Workgroups of one training dispatch for a batch: each loops over tiles (train_step.comp), so the
// gradient partial rows do not grow with the batch.
uint32_t persistent_groups(const DeviceFeatures& device, const TrainTiling& tiling, uint32_t batch,
                           uint32_t mlp_floats);

// TrainTiling::local_gradient_cells for `groups` workgroups training `batch` samples on this device
// (choose_local_gradient_cells with its shared memory: the sums are 32-bit shared atomics, which
// every device has; they take fixed-point gradients, which need its 64-bit buffer atomics).
uint32_t local_gradient_cells_for(const DeviceFeatures& device, const ModelConfig& config, const TrainTiling& tiling,
                                  uint32_t batch, uint32_t groups, std::optional<double> min_hits = std::nullopt);

// Both of the above, chosen for a training run into `tiling` (the deferred sums first: the local
// ones stand in where the batch is too small for those to take any cells).
// `local` / `deferred` false: that kind is not taken (testing::forward_backward's choices).
void choose_gradient_sums(const DeviceFeatures& device, const ModelConfig& config, TrainTiling& tiling, uint32_t batch,
                          uint32_t groups, std::optional<double> min_hits = std::nullopt, bool local = true,
                          bool deferred = true, const KernelOverrides& overrides = {});
// TrainTiling::deferred for training `batch` samples with `tiling` on this device (whose local sums
// are chosen: choose_deferred_gradients with its shared memory, its buffer cap or an eighth of its
// memory, whichever is less, and the summing
// pass's workgroups: one a multiprocessor on a GPU, 8 on a CPU, at most one per workgroup size of
// samples).
TrainTiling::Deferred deferred_gradients_for(const DeviceFeatures& device, const ModelConfig& config,
                                             const TrainTiling& tiling, uint32_t batch,
                                             std::optional<double> min_hits = std::nullopt,
                                             const KernelOverrides& overrides = {});
// The summing pass of `tiling.deferred` (encoding_deferred_sums.comp): bindings the encoding's
// state twice (64-bit words, uints), the deferred inputs, and with explicit samples their uvs.
KernelRequest deferred_sums_kernel_request(const ModelConfig& config, const TrainTiling& tiling,
                                           bool explicit_samples);
// Records the pass (if the tiling defers any groups) and a compute barrier after it.
void record_deferred_sums(VkCommandBuffer cb, const DescriptorSet& set, const PushConstants& pc,
                          const TrainTiling& tiling);

// Records one training step's dispatch(es) of `set` (a train_step.comp kernel of `tiling`) over
// `groups` workgroups, each followed by a compute barrier. A CPU driver's portable workgroups take
// kCpuTilesPerDispatch tiles each per dispatch (pc.first_row / pc.count: the dispatch's first tile
// and tile count): on lavapipe (Mesa 22.3), a workgroup of a wide MLP that loops over several
// tiles computes wrong outputs and gradients from some tile on (width 128: the 3rd; width 64: the
// 7th; also split over dispatches of 4 tiles), while one tile a dispatch is right, as the H100 is
// at any count (GpuGradients.WeightsReadFromMemoryMatchReference, both drivers). The cause is
// llvmpipe's cap on an invocation's loop iterations (65,535 back-edges in all, then every loop
// exits: DeviceImpl::loop_iterations_capped): each tile's passes add a few multiply-adds per
// weight, so one tile a dispatch keeps the count to one tile's.
inline constexpr uint32_t kCpuTilesPerDispatch = 1;
void record_train_dispatches(VkCommandBuffer cb, const DeviceImpl& device, const DescriptorSet& set,
                             PushConstants pc, const TrainTiling& tiling, uint32_t groups);

// Rows of mlp_floats the training step's partials buffer holds for `groups` workgroups, and the
// floats of its loss partials: one per workgroup, on the tensor-core path one per subgroup (every
// subgroup keeps its own sums through the step); the optimizer sums them all.
uint32_t partial_rows(const TrainTiling& tiling, uint32_t groups);

// optimizer.comp's PARAMS_PER_GROUP: the MLP parameters one of its workgroups sums and steps (its
// 256 invocations split the partial rows into 256 / n slices, which one invocation a parameter
// then adds up in order). As many as keep two of those workgroups a multiprocessor, from 4 to 32:
// more, and fewer, longer chains of loads leave multiprocessors idle; fewer than 4, and the
// slices' serial sum grows long. On the H200 (132 multiprocessors, the optimizer dispatch's us at
// 2^20 for 2 / 4 / 8 / 16 / 32 / 64 parameters a workgroup; bench/archive/RESULTS.md, "the
// optimizer's workgroups sized by the MLP"):
//   width 16's 816 parameters     7.5 / 6.8 / 7.1 / 8.2 / 10.4 / 15.4
//   the lake model's 2,128          - / 6.5 / 6.0 / 6.6 /  7.9 / 10.6
//   width 64's 6,288                - / 7.6 / 5.9 / 5.7 /  6.1 /  6.9
//   width 128's 20,752              - / 12.1 / 9.3 / 7.9 / 6.6 /  7.5
// A device that does not report its multiprocessors (0) takes 8.
uint32_t optimizer_params_per_group(uint32_t mlp_params, uint32_t multiprocessors);

// The fused training kernel for a model on this device (EXPLICIT_SAMPLES for tests, else the
// samples are drawn from the training image of layout `image`), for DeviceImpl::kernel or
// prepare_kernels once use_state_layout has added the state's layout.
KernelRequest train_kernel_request(const ModelConfig& config, const TrainTiling& tiling, bool explicit_samples,
                                   const TargetImageLayout& image = {});
// The kernel render_bands runs for a model on this device.
KernelRequest render_kernel_request(const DeviceFeatures& device, const ModelConfig& config,
                                    const KernelOverrides& overrides = {});

// What is done with each band of a render: `record` adds commands after the band's dispatch
// (same command buffer; `out` holds rows [first, first + rows), output_dims floats per pixel),
// `done` runs on the host once they have completed.
struct RenderBandUse {
    std::function<void(VkCommandBuffer cb, const Buffer& out, uint32_t first, uint32_t rows)> record;
    std::function<void(uint32_t first, uint32_t rows)> done;
};

// Times GPU work with a timestamp query pool of `count` entries (no pool if the device has no
// compute timestamps: then every reading is 0).
class GpuTimer;

// What a render allocates (the band buffer and its descriptor set, a timestamp pool, the
// read-back buffer), kept by a caller that renders the same model again (Trainer's evaluations
// and snapshots): each allocation costs about a millisecond on some drivers, so an evaluation
// that allocated them all took ~8 ms on the H100 for a 0.4-megapixel image. Reused while the
// kernel, the model's buffers and the band shape stay the same.
struct RenderBandResources {
    RenderBandResources();
    ~RenderBandResources();
    RenderBandResources(RenderBandResources&&) noexcept;
    RenderBandResources& operator=(RenderBandResources&&) noexcept;

    const void* kernel = nullptr;
    VkBuffer mlp = VK_NULL_HANDLE, encoding = VK_NULL_HANDLE;
    uint32_t width = 0, band_rows = 0;
    Buffer out, readback;
    DescriptorSet set;
    std::unique_ptr<GpuTimer> timer;
};

// Rows in each band of a width x height render on this device (EngineError if not even one row fits).
uint32_t render_band_rows(const DeviceFeatures& device, const ModelConfig& config, uint32_t width, uint32_t height,
                          const KernelOverrides& overrides = {});

// Renders width x height pixel centres of the model held in `mlp` / `encoding` in bands of rows,
// each within maxStorageBufferRange and one dispatch (so any size the host can hold renders on any
// device), handing each band to `use`. gpu_seconds receives the render dispatches' own GPU time
// (timestamps; 0 if the device has none). `keep`: resources to reuse and leave for the next call.
void render_bands(DeviceImpl& device, CommandRunner& runner, const GpuModel& model, uint32_t width, uint32_t height,
                  const RenderBandUse& use, double* gpu_seconds = nullptr, RenderBandResources* keep = nullptr);

// render_bands into host memory: config.output_dims floats per pixel, row after row.
std::vector<float> render_buffers(DeviceImpl& device, CommandRunner& runner, const GpuModel& model,
                                  uint32_t width, uint32_t height, double* gpu_seconds = nullptr,
                                  RenderBandResources* keep = nullptr);
// The same into the caller's `out` (width * height * config.output_dims floats), which spares a
// large render an allocation and a copy.
void render_buffers_into(DeviceImpl& device, CommandRunner& runner, const GpuModel& model,
                         uint32_t width, uint32_t height, float* out, double* gpu_seconds = nullptr,
                         RenderBandResources* keep = nullptr);

class GpuTimer {
public:
    GpuTimer(DeviceImpl& device, uint32_t count);
    ~GpuTimer();
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;
    void reset(VkCommandBuffer cb);                 // before the first stamp of a submit
    void stamp(VkCommandBuffer cb, uint32_t index); // after all earlier commands complete
    std::vector<double> seconds();                  // stamp i - stamp 0, after the submit's wait
    bool enabled() const { return pool_ != VK_NULL_HANDLE; }

private:
    DeviceImpl& device_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
    uint32_t count_ = 0;
    double period_ns_ = 0;
};

inline uint32_t div_up(uint64_t n, uint32_t d) { return uint32_t((n + d - 1) / d); }

} // namespace ff::engine::detail
