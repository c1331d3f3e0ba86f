// fieldflow engine: learn one image as a feature grid + tiny MLP, (u,v) -> RGB, on any Vulkan 1.2
// device with storage-buffer float atomics. No OpenCV, no graphs: plain float buffers in and out.
//
//   auto device = ff::engine::Device::open("auto");
//   ff::engine::Trainer trainer(device, config, train_options, image);
//   while (trainer.step() < train_options.steps) trainer.train(1000);   // many steps per submit
//   ff::engine::Model model = trainer.model();
//   std::vector<float> rgb = ff::engine::render(device, model, 1600, 1100);
#pragma once

#include "fieldflow/engine/kernel_overrides.hpp"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ff::engine {

// Bumped whenever a change to the kernels or defaults changes what training produces for the same
// inputs; nodes fold it into their cache keys so a disk cache never returns a stale model.
// 3: the SIREN initialisation of sine models; Train writes model file 1.1.
// 4: learning-rate warm-up and positive ReLU biases at initialisation.
// 5: persistent training workgroups (gradient sums in another order); model file 1.2 (hash grid).
inline constexpr uint32_t kVersion = 5;

// Every engine failure: what is wrong, in the user's terms ("no Vulkan driver found (...)",
// "device 'llvmpipe' lacks shaderBufferFloat32AtomicAdd", "out of device memory allocating ...").
struct EngineError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ---- Device --------------------------------------------------------------------------------

struct DeviceInfo {
    uint32_t index = 0;         // position in vkEnumeratePhysicalDevices
    std::string name;           // "NVIDIA H100 80GB HBM3", "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::string type;           // "discrete", "integrated", "virtual", "cpu", "other"
    std::string driver;         // driver name and version
    uint32_t subgroup_size = 0;
    bool float_atomics = false; // shaderBufferFloat32AtomicAdd: required
    bool cooperative_matrix = false; // VK_NV_cooperative_matrix with fp16 16x16x16
    bool int64_atomics = false; // shaderInt64 + shaderBufferInt64Atomics: fixed-point encoding gradients
    std::string missing;        // empty if usable, else the missing features, comma-separated
    uint64_t memory_bytes = 0;  // the largest device-local memory heap (system memory on a CPU driver)
    uint32_t multiprocessors = 0; // streaming multiprocessors (VK_NV_shader_sm_builtins); 0 if not reported
};

// Every Vulkan physical device, usable or not. Empty (no exception) if there is no driver.
std::vector<DeviceInfo> list_devices();

struct DeviceOptions {
    // Enable VK_LAYER_KHRONOS_validation and collect its messages (see Device::validation_messages).
    // Defaults to the environment variable FIELDFLOW_VALIDATION=1.
    bool validation = false;
    // Force the portable kernels even where the tensor-core path is available
    // (also FIELDFLOW_KERNEL_PATH=portable).
    bool force_portable = false;
    // Caps every storage buffer below the device's maxStorageBufferRange (0: no cap; also
    // FIELDFLOW_MAX_BUFFER_BYTES=N). Buffers that can grow past the cap (the training image) are
    // split into parts; this lets a small image exercise the split on any device.
    uint64_t max_buffer_bytes = 0;
    // The encoding's gradients as fixed-point integers where the device has 64-bit atomics; false
    // keeps float atomics, whose order can vary (tests of that path, measurements).
    bool fixed_point_gradients = true;
    // Print what the driver reports of each compiled kernel (registers, shared memory, ...:
    // VK_KHR_pipeline_executable_properties), for tuning the kernels (ff-engine-bench --pipeline-stats).
    bool pipeline_stats = false;
};

class DeviceImpl;

// A Vulkan device, queue and pipeline cache shared by everything that runs on it. Cheap to copy
// (shared handle); thread-safe: each Trainer / render call records its own command buffers.
class Device {
public:
    // selector: "auto" (discrete GPU, else any GPU, else the CPU driver), "cpu" (lavapipe), or a
    // device index "0", "1", ... Throws EngineError naming what is missing.
    static Device open(const std::string& selector, DeviceOptions options = {});

    const DeviceInfo& info() const;
    // "portable" or "coopmat": the kernel path this device uses for the MLP.
    std::string kernel_path() const;
    // Validation-layer messages (warnings and errors) since open, when validation is on.
    std::vector<std::string> validation_messages() const;
    // Bytes of device memory currently allocated by the engine on this device.
    uint64_t allocated_bytes() const;
    // Whether training adds the encoding's gradients as fixed-point integers (the device has 64-bit
    // integer atomics; DeviceOptions::fixed_point_gradients false turns it off). Their sums then do not
    // depend on the order the GPU adds them in, and two runs with the same seed agree bit for bit;
    // otherwise float atomics leave them agreeing to rounding.
    bool fixed_point_gradients() const;

    DeviceImpl& impl() const { return *impl_; }

private:
    std::shared_ptr<DeviceImpl> impl_;
};

// ---- Model ---------------------------------------------------------------------------------

enum class Activation : uint32_t { none = 0, relu = 1, sigmoid = 2, sine = 3 };

// What the MLP sees of a position (u, v). Each kind is one descriptor in the engine
// (kernels/src/encodings/): its configuration, parameter count, MLP input width, initialisation,
// shader, model-file keys and CPU reference; docs/engine.md says how to add one.
//  dense_grid: a learnable feature grid (grid_width x grid_height x grid_channels) sampled
//              bilinearly, then the positional terms of EncodingConfig;
//  coords:     (2u - 1, 2v - 1) alone, no parameters (SIREN: the network is the whole model);
//  hash_grid:  the multiresolution hash encoding of Instant-NGP (Mueller et al. 2022): `levels`
//              grids, each sampled bilinearly, concatenated (levels x features inputs);
//  frequency:  NeRF's positional encoding (Mildenhall et al. 2020), no parameters: (2u - 1, 2v - 1)
//              and per octave k sin/cos(2^k pi u), sin/cos(2^k pi v) (2 + 4 x octaves inputs).
enum class EncodingKind : uint32_t { dense_grid = 0, coords = 1, hash_grid = 2, frequency = 3 };

// The multiresolution hash grid. Level l has resolution floor(base_resolution * per_level_scale^l)
// cells per side, i.e. (res + 1)^2 vertices; a level whose vertices fit the table is indexed
// densely (y * (res + 1) + x), a larger one hashes (x * 1) XOR (y * 2654435761) mod 2^log2_table_size.
// Each vertex holds `features` learnable floats.
struct HashGridConfig {
    uint32_t levels = 16;          // 1..32
    uint32_t features = 2;         // per level: 1, 2, 4 or 8
    uint32_t log2_table_size = 12; // entries per level at most: 2^10 .. 2^24
    uint32_t base_resolution = 16; // level 0's cells per side: 2..65536
    float per_level_scale = 1.3f;  // growth of the resolution per level: [1, 4]
    bool operator==(const HashGridConfig&) const = default;
};

// The frequency encoding: octaves k = 0 .. octaves - 1, the finest sin(2^(octaves-1) pi u) with
// 2^(octaves-2) periods across the image.
struct FrequencyConfig {
    uint32_t octaves = 8; // 1..14 (2 + 4 x 14 = 58 MLP inputs, under the hash grid's 64)
    bool operator==(const FrequencyConfig&) const = default;
};

struct EncodingConfig {
    EncodingKind kind = EncodingKind::dense_grid;
    // dense_grid: positional terms appended after the grid features.
    bool subcell = true;          // sin(pi * f) of the position f between grid nodes, per axis (2 terms)
    uint32_t fourier_octaves = 2; // global Fourier features: octaves per axis, each a sin/cos pair
    // Logical input width = grid_channels + (subcell ? 2 : 0) + 4 * fourier_octaves, padded to 16
    // (3 + 2 + 8 = 13 for the default).
    // coords, hash_grid and frequency ignore subcell and fourier_octaves, and need a 0x0 grid size.
    HashGridConfig hash;          // hash_grid only
    FrequencyConfig frequency;    // frequency only
    bool operator==(const EncodingConfig&) const = default;
};

struct ModelConfig {
    uint32_t grid_width = 0;   // feature grid resolution, e.g. image / 4
    uint32_t grid_height = 0;
    uint32_t grid_channels = 3;
    EncodingConfig encoding;
    uint32_t hidden_width = 32; // 16, 32, 64 or 128
    uint32_t hidden_layers = 2;
    Activation hidden_activation = Activation::relu;
    Activation output_activation = Activation::sigmoid;
    uint32_t output_dims = 3;   // RGB
    // Frequency factors of sine layers (SIREN): matrix 0 computes act(first_omega * (W x + b)),
    // hidden matrices act(hidden_omega * (W x + b)); the output matrix is never scaled. 1 = plain.
    float first_omega = 1.0f;
    float hidden_omega = 1.0f;

    uint32_t input_width() const;        // logical encoding width (13 for the default)
    uint64_t encoding_parameter_count() const; // learnable floats of the encoding (Model::encoding_params)
    uint64_t parameter_count() const;    // logical (unpadded) learnable parameters of the model
    uint32_t padded_input_width() const; // rounded up to 16
    uint32_t padded_output_width() const;
    std::string validate() const;        // empty if valid, else what is wrong
    bool operator==(const ModelConfig&) const = default; // every field, exactly
};

// The model in a few words for logs and reports: "200x137x3 grid + MLP 32x2",
// "hash grid 16x2 (2^12 rows per level, base 16) + MLP 64x2", "SIREN 32x2 (omega 30)".
std::string model_summary(const ModelConfig& config);

// All learnable parameters, fp32. Layout is the contract of docs/model-format.md:
//  encoding_params: the encoding's parameters (dense_grid: grid_height rows x grid_width columns x
//  grid_channels, row-major; hash_grid: level by level, vertex by vertex, `features` floats each;
//  coords: none);
//  layers: for each of hidden_layers + 1 matrices, weights [out][in_padded] then biases [out],
//  with padded rows/columns zero.
struct Model {
    ModelConfig config;
    std::vector<float> encoding_params;
    std::vector<float> mlp;
    uint64_t parameter_count() const; // config.parameter_count()
};

// The initial bias of hidden ReLU layers (TrainOptions::hidden_bias): slightly positive, so that
// few units start (and stay) switched off: with the warm-up, +0.5 dB on graf1 and +0.2 dB on
// leuvenA over 10 seeds for the dense grid at 40,000 steps (bench/archive/RESULTS.md, "graf1
// against the PyTorch peer, and the warm-up + ReLU-bias defaults"). The 64-wide hash model at
// 2,000 steps learns better from 0 without the warm-up, as Instant-NGP's bias-free MLP starts
// (+1.1 dB on leuvenA; bench/archive/RESULTS.md, "the hash models' training recipe").
inline constexpr float kDefaultHiddenBias = 0.1f;

// The same initialisation the Trainer uses (deterministic for a seed). ReLU-like layers take
// He/Kaiming uniform weights (the output layer Xavier's) and `hidden_bias` as the hidden layers'
// biases. A sine hidden activation takes the SIREN initialisation (Sitzmann et al. 2020): matrix 0
// weights U(-1/in, 1/in), later weights U(-sqrt(6/in)/hidden_omega, +), biases
// U(-1/sqrt(in), 1/sqrt(in)).
Model initial_model(const ModelConfig& config, uint64_t seed, float hidden_bias = kDefaultHiddenBias);

// A SIREN: coords encoding, hidden_layers x hidden_width sine layers with omega on every sine layer
// (first and hidden, as in the paper), a linear RGB output.
ModelConfig siren_config(uint32_t hidden_width = 64, uint32_t hidden_layers = 3, float omega = 30.0f);

// ---- Training ------------------------------------------------------------------------------

// How the feature grid's Adam treats cells that no sample touched in a step.
//  sparse: they do not step and their moments freeze (the per-cell Adam of the seed);
//  dense:  they step on with a zero gradient, their momentum decaying (torch.optim.Adam on a
//          dense grid). In the sweep that set the learning rates, dense's best setting reached
//          a higher PSNR than sparse's on both photos (bench/archive/RESULTS.md, "portable
//          kernels").
// Dense Adam runs in one of two forms with the same result (to rounding; TrainOptions::dense_adam):
// eagerly, a pass over every cell each step (its cost grows with the grid or table), or lazily, a
// step updating only what its batch touches while a cell catches up the zero-gradient steps it
// skipped, in closed form, before it is read (kernels/shaders/encoding_adam.glsl; its cost follows
// the batch).
enum class GridAdam : uint32_t { sparse = 0, dense = 1 };
// automatic: the lazy form once the cells outnumber what a step reads a number of times that depends
// on the encoding and on whether the device is a GPU or a CPU driver (kLazyDenseAdamRatio and
// kLazyDenseAdamRatioOnCpu for the dense grid, kLazyHashAdamRatio and kLazyHashAdamRatioOnCpu for
// the hash grid).
enum class DenseAdam : uint32_t { automatic = 0, eager = 1, lazy = 2 };
// The dense grid's cells-to-reads ratio from which the lazy form is the faster. On the H100 the two
// tie at 2 at batch 2^14 (17.83 / 18.00 us a step) and the lazy form wins there at larger batches
// (by 9% at 2^16, 14% at 2^18, 11% at 2^20), and from 2.5 at every batch; at 1.5 eager wins by 9%
// at 2^14 and ties at 2^16 and 2^20
// (bench/archive/RESULTS.md, "lazy dense Adam's crossover at batches 2^14-2^20 and on the hash grid").
inline constexpr double kLazyDenseAdamRatio = 2.0;
// The same on a CPU driver (lavapipe, 2 cores), where the lazy form's visits cost more next to the
// eager pass: still 20% the slower at 4.2 (bench/archive/RESULTS.md, "the crossovers on lavapipe").
inline constexpr double kLazyDenseAdamRatioOnCpu = 5.0;
// The hash grid's. On the H100, on tables shaped like graphs/gigapixel.yaml's (per-level scale
// 1.65, 2^19-2^23 rows, an 8192x8192 photo), eager wins by 12-18% at ratios 1.7-2.2 and ties or
// wins (by up to 7%) at 2.5-2.8; the lazy form wins by 2-9% at 3, 14-23% at 3.4-4.4, 1.8-1.95x at
// 6.1-8.2 and 3.2x at 15. On issue 13's leuvenA model (scale 1.3, 2^20 rows) the lazy form wins at
// every ratio measured, 1.6-12.6
// (bench/archive/RESULTS.md, "lazy dense Adam's crossover at batches 2^14-2^20 and on the hash grid").
inline constexpr double kLazyHashAdamRatio = 3.0;
// The same on a CPU driver (lavapipe, 2 cores; the same tables' shape, three runs each): the lazy
// form takes 1.4x eager's time at ratios 1.5-1.6 and 1.1x at 2.7, the same at 3.1, and 0.77x at 5.1
// (bench/archive/RESULTS.md, "the crossovers on lavapipe").
inline constexpr double kLazyHashAdamRatioOnCpu = 4.0;

struct TrainOptions {
    uint32_t steps = 40000;
    uint32_t batch = 16384;
    // lr_mlp and lr_grid: the best pair of a sweep at 40,000 steps x 16,384
    // (bench/archive/RESULTS.md, "portable kernels").
    float lr_mlp = 3e-2f;
    float lr_grid = 3e-2f;
    float beta1 = 0.9f;
    float beta2 = 0.99f;
    float epsilon = 1e-15f;
    uint64_t seed = 1;
    // Learning-rate schedule: both rates ramp up linearly over the first lr_warmup * steps (500
    // of the default 40,000: Adam's first steps are full-size whatever the gradient, and at full
    // rate they switch off ReLU units for good), hold until lr_decay_start * steps, then decay
    // exponentially to lr_final_scale times their value at `steps` (and stay there).
    float lr_warmup = 0.0125f;
    float lr_decay_start = 0.5f;
    float lr_final_scale = 0.03f;
    // The initial bias of hidden ReLU layers (initial_model); a run from a checkpoint keeps its own.
    float hidden_bias = kDefaultHiddenBias;
    GridAdam grid_adam = GridAdam::dense;
    // The form of dense Adam (same result to rounding; automatic picks the faster). Betas whose
    // skipped steps decay too slowly for the closed form (beta1 >= sqrt(beta2)) take the eager one.
    DenseAdam dense_adam = DenseAdam::automatic;
    // Kernel choices fixed for a measurement or a test (kernel_overrides.hpp); none by default.
    KernelOverrides kernels;
};

struct ImageData {
    uint32_t width = 0;
    uint32_t height = 0;
    std::vector<float> rgb; // width * height * 3, row-major, [0,1]
    // Bits per sample of the source (8, 16, 32 for float): above 8 the trainer keeps the target at
    // 16 bits per channel (RGBA16) instead of RGBA8, so a 16-bit photo is learned at its precision.
    uint32_t source_bits = 8;
};

// The device memory a Trainer will hold, estimated before anything is allocated: the Trainer's
// constructor refuses a run that cannot fit (EngineError naming both figures) instead of failing
// part-way through its allocations. An upper bound: read-back buffers (host memory on a discrete
// GPU) count too.
struct MemoryEstimate {
    std::vector<std::pair<std::string, uint64_t>> parts; // ("image", bytes), ("encoding", bytes), ...
    uint64_t total = 0;
    uint64_t device_memory = 0; // the device's largest device-local heap
    uint64_t held = 0;          // what the engine already holds on this device
    std::string text() const;   // "5.21 GiB (image 3.35 GiB, encoding 1.02 GiB, ...)"
};
MemoryEstimate estimate_training_memory(const Device& device, const ModelConfig& config, const TrainOptions& options,
                                        uint32_t width, uint32_t height, uint32_t source_bits = 8);
// EngineError when `estimate` needs more than the device has free: "training needs about ... of
// device memory (...), more than the ... free on '<device>' (... in all, ... held by this process)".
void require_fits(const MemoryEstimate& estimate, const std::string& device_name);

class TrainerImpl;

// Everything a Trainer needs to go on exactly where it stopped: the parameters, the steps done and
// Adam's moments. The pixel sampler is counter-based on (seed, step), so a Trainer built from the
// state at step k (same configuration, options and image) continues as the uninterrupted run
// would, to the rounding of the float atomics that sum grid gradients. Checkpoint files carry it
// (checkpoint_file.hpp).
struct TrainerState {
    Model model;
    uint32_t step = 0;                 // steps done (Adam's next step is step + 1)
    std::vector<float> mlp_m, mlp_v;   // Adam moments of Model::mlp, same layout and size
    std::vector<float> encoding_m, encoding_v; // Adam moments of Model::encoding_params, same layout and size
};

// Mean GPU time of one kind of dispatch over profiled steps (Trainer::profile_dispatches).
struct DispatchTime {
    std::string name; // "train_step", "optimizer"
    double us = 0;    // microseconds, including the barrier that follows it
};

class Trainer {
public:
    // Uploads the image, initialises the model (or continues from `start`), builds the pipelines.
    Trainer(const Device& device, const ModelConfig& config, const TrainOptions& options,
            const ImageData& image, const Model* start = nullptr);
    // Resumes from `resume` (a fresh start when null): its model must have `config` and its moments
    // the model's sizes (EngineError saying what differs). The options and image should be those
    // of the run that produced it, or the continuation is a different run.
    Trainer(const Device& device, const ModelConfig& config, const TrainOptions& options,
            const ImageData& image, const TrainerState* resume);
    ~Trainer();
    Trainer(Trainer&&) noexcept;
    Trainer& operator=(Trainer&&) noexcept;

    // Runs `steps` more training steps recorded into as few command buffers as possible, then
    // waits. Returns the mean training loss (MSE over the batch) of the last step run.
    float train(uint32_t steps);
    uint32_t step() const; // steps done so far

    Model model() const;                          // downloads the current parameters
    TrainerState state() const;                   // downloads parameters, step and Adam moments
    std::vector<float> render(uint32_t width, uint32_t height) const; // RGB of the current model
    // The same into `rgb` (width * height * 3 floats, row after row): a caller that holds the
    // image anyway (a snapshot's preview) spares the allocation and a copy.
    void render_into(uint32_t width, uint32_t height, float* rgb) const;
    double full_image_mse() const;                // MSE of a render at the image's own size
    uint64_t device_bytes() const;                // device memory this trainer holds

    // Nonzero if the last train() saw a non-finite loss (training diverged).
    bool diverged() const;
    // The first step of the last train() whose loss was not finite (counted like step(), so the
    // k-th step from the start is k); 0 if none.
    uint32_t diverged_step() const;

    // GPU time of all training steps run so far, from timestamps (seconds; 0 if the device
    // has no timestamps).
    double gpu_seconds() const;
    // Samples per workgroup of the fused training kernel on this device.
    uint32_t tile_size() const;
    // The encoding's leading cells whose gradients each training workgroup sums in shared memory
    // before adding them to device memory (0: none; a hash grid's coarsest levels at large batches).
    uint32_t local_gradient_cells() const;
    // The encoding's leading cells whose gradients a pass after each training step sums in shared
    // memory instead (0: none; a hash grid's coarsest levels at large batches, where the training
    // kernel has no shared memory to spare for local sums).
    uint32_t deferred_gradient_cells() const;
    // "coopmat" or "portable": the MLP kernels this trainer runs (the device's path, or "portable"
    // for a model too wide for the tensor-core kernels' shared memory).
    std::string kernel_path() const;
    // Why a device with tensor cores runs this model on the portable kernels; "" when it does not.
    std::string kernel_path_reason() const;
    // The encoding's optimizer as run: "sparse", "dense, eager" or "dense, lazy" (see DenseAdam).
    std::string encoding_optimizer() const;
    // Buffers the training image lies in: 1, or more where it outgrows one (docs/engine.md).
    uint32_t image_parts() const;
    // Whether the kernels reach the encoding's training state by its device address: it is larger
    // than one storage buffer may be on this device (docs/engine.md).
    bool state_by_address() const;
    // GPU time of the render dispatch alone in the last render() (timestamps; seconds, 0 if none).
    double last_render_gpu_seconds() const;
    // Runs `steps` (at most 1,000) more training steps with a barrier and a GPU timestamp after
    // every dispatch, for measurements: the mean time of each kind of dispatch.
    std::vector<DispatchTime> profile_dispatches(uint32_t steps);

private:
    std::unique_ptr<TrainerImpl> impl_;
};

// Evaluates `model` at width x height pixel centres (in bands of rows where one buffer cannot hold
// the whole output); returns RGB floats. `kernels`: choices fixed for a test or a measurement.
std::vector<float> render(const Device& device, const Model& model, uint32_t width, uint32_t height,
                          const KernelOverrides& kernels = {});

} // namespace ff::engine
