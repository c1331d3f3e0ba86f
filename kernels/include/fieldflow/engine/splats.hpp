// fieldflow engine: an image as N 2D Gaussian splats, fitted with Adam on the GPU.
//
// Each splat has 8 parameters (as GaussianImage): position (2), Cholesky factor of the covariance
// (3: l11, l21, l22 of L with Sigma = L L^T, in pixels), colour (3, RGB), plus an opacity folded
// into the colour for order-free accumulated blending. Rendering is a tile-based differentiable
// rasteriser in Vulkan compute: splats are binned to 16x16 screen tiles (per-tile lists), each pixel
// accumulates the splats of its tile, and the backward pass walks the same lists.
//
//   ff::engine::SplatTrainer trainer(device, {.count = 10000}, options, image);
//   trainer.train(2000);
//   ff::engine::SplatModel model = trainer.model();
//   std::vector<float> rgb = ff::engine::render_splats(device, model, 1024, 1024);
#pragma once

#include <fieldflow/engine/engine.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ff::engine {

inline constexpr uint32_t kSplatParams = 8; // floats per splat in SplatModel::params

struct SplatConfig {
    uint32_t count = 10000; // number of splats
    std::string validate() const;
};

struct SplatModel {
    SplatConfig config;
    uint32_t width = 0;  // the image size the splats live in (positions are in its pixels)
    uint32_t height = 0;
    // count * kSplatParams floats: x, y, l11, l21, l22, r, g, b  (documented in docs/engine.md)
    std::vector<float> params;
    uint64_t parameter_count() const { return uint64_t(config.count) * kSplatParams; }
};

struct SplatTrainOptions {
    uint32_t steps = 2000;
    // Per-group Adam learning rates, in the parameters' own units (pixels for position and
    // Cholesky factor, [0,1] intensity for colour); chosen by measurement (docs/engine.md).
    float lr_position = 0.2f;
    float lr_cholesky = 0.05f;
    float lr_color = 0.02f;
    uint64_t seed = 1;           // initialisation (positions sampled from the image)
    std::string validate() const; // empty if valid, else what is wrong
};

// The initialisation SplatTrainer uses (deterministic for a seed): positions drawn half uniformly,
// half by the image's gradient magnitude; covariances round, their size from the local splat
// density so neighbours overlap about twice; colours the image's at each position.
SplatModel initial_splats(const SplatConfig& config, const ImageData& image, uint64_t seed);

class SplatTrainerImpl;

// A splat fit's whole state, as TrainerState is a grid model's: a SplatTrainer built from the state
// at step k continues as the uninterrupted fit would (to float-atomic rounding of the gradients).
struct SplatTrainerState {
    SplatModel model;
    uint32_t step = 0;                  // steps done
    std::vector<float> adam_m, adam_v; // Adam moments of SplatModel::params, same layout and size
};

class SplatTrainer {
public:
    // Uploads the image, initialises the splats (or continues from `start`, whose count and size
    // must match), builds the pipelines.
    SplatTrainer(const Device& device, const SplatConfig& config, const SplatTrainOptions& options,
                 const ImageData& image, const SplatModel* start = nullptr);
    // Resumes from `resume` (a fresh start when null); its count, size and moments must match
    // (EngineError saying what differs).
    SplatTrainer(const Device& device, const SplatConfig& config, const SplatTrainOptions& options,
                 const ImageData& image, const SplatTrainerState* resume);
    ~SplatTrainer();
    SplatTrainer(SplatTrainer&&) noexcept;
    SplatTrainer& operator=(SplatTrainer&&) noexcept;

    // Full-image MSE loss steps; returns the loss of the last step. Many steps per submit.
    float train(uint32_t steps);
    uint32_t step() const;
    SplatModel model() const;
    SplatTrainerState state() const; // downloads parameters, step and Adam moments
    std::vector<float> render(uint32_t width, uint32_t height) const;
    double full_image_mse() const; // MSE of a render at the image's own size (clamped to [0,1])
    double gpu_seconds() const; // GPU time of all steps so far (timestamps), 0 if unavailable
    bool diverged() const;      // the last train() saw a non-finite loss
    uint64_t device_bytes() const; // device memory this trainer holds

private:
    std::unique_ptr<SplatTrainerImpl> impl_;
};

// Renders a fitted model at any size (positions and covariances scale with the output).
std::vector<float> render_splats(const Device& device, const SplatModel& model, uint32_t width,
                                 uint32_t height);

} // namespace ff::engine
