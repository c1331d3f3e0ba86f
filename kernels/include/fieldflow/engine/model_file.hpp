// fieldflow model file: a trained model (configuration + fp32 weights) with the facts a user needs
// to trust and reuse it (training image size, how it was trained), as one self-checking byte string.
// Byte-level layout: docs/model-format.md. Pure C++ (plus xxhash): no Vulkan calls, no OpenCV.
//
//   std::vector<std::byte> bytes = ff::engine::encode_model_file(file);
//   ff::engine::ModelFile back = ff::engine::decode_model_file(bytes, "lake.ffm");
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/engine/splats.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ff::engine {

// The format version this build writes. It reads every file of the same major version; keys it
// does not know are tolerated only in files of a newer minor version.
inline constexpr uint32_t kModelFormatMajor = 1;
inline constexpr uint32_t kModelFormatMinor = 4;

// Any reason a byte string is not a usable model file. The message starts with the source name
// ("lake.ffm: truncated (expected 1234 bytes, got 1000)").
struct ModelFileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// How the weights were obtained. Informational: loading never depends on these values, but they
// travel with the model so a report can say what produced it.
struct TrainingInfo {
    uint32_t steps = 0;          // optimiser steps run
    uint32_t batch = 0;          // samples per step
    uint64_t seed = 0;
    float lr_mlp = 0.0f;
    float lr_grid = 0.0f;
    std::string device;          // device name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::string kernel_path;     // "portable" or "coopmat"
    double final_loss = 0.0;     // last training-batch MSE
    double final_psnr = 0.0;     // full-image PSNR in dB at the end of training
    double train_seconds = 0.0;  // wall time of the training loop
};

// Which representation a file holds (header key `model`, version 1.1; 1.0 files are all `grid`).
//  grid:   feature grid + MLP (dense_grid or, from version 1.2, hash_grid encoding);
//  siren:  sine MLP on the coordinates alone (coords encoding, no grid);
//  splats: 2D Gaussian splats (splats.hpp); `model` is then unused and `splats` holds them.
enum class ModelKind : uint32_t { grid = 0, siren = 1, splats = 2 };
std::string_view model_kind_name(ModelKind kind);

// How the weights are stored (header key `weights`, version 1.3; absent: fp32). fp16 halves a
// grid or SIREN file; the weights read back are the fp16 values, exactly.
enum class WeightPrecision : uint32_t { fp32 = 0, fp16 = 1 };
std::string_view weight_precision_name(WeightPrecision precision); // "fp32", "fp16"

struct ModelFile {
    ModelKind kind = ModelKind::grid;
    WeightPrecision precision = WeightPrecision::fp32; // grid and siren models; splats are fp32
    Model model;                 // configuration + encoding parameters + mlp, as engine.hpp's Model
    SplatModel splats;           // kind == splats only
    uint32_t image_width = 0;    // size of the image it was trained on (Infer's default size)
    uint32_t image_height = 0;
    TrainingInfo training;
};

// Serialises `file`. Throws ModelFileError if the model is not self-consistent (invalid
// configuration, weight counts that do not match it, non-finite weights, weights past fp16's
// range when stored as fp16, fp16 asked of a splat model, zero image size, or text fields
// containing line breaks), so an unreadable file is never written.
std::vector<std::byte> encode_model_file(const ModelFile& file);

// Parses and checks a model file. Every size read from the file is bounds-checked before use.
// Throws ModelFileError naming the problem: not a model file, unsupported version, truncated,
// checksum mismatch (corrupt), malformed header, invalid configuration, payload size mismatch.
ModelFile decode_model_file(std::span<const std::byte> bytes, std::string_view source_name);

// Number of floats the encoding and MLP of `config` hold (padded layout, as in engine.hpp's Model;
// the header's `grid_floats` counts the encoding's).
// `config` must be valid (config.validate() empty).
uint64_t encoding_float_count(const ModelConfig& config);
uint64_t mlp_float_count(const ModelConfig& config);

// Stable lowercase names of activations, as written in the header ("relu", "sigmoid", ...).
std::string_view activation_name(Activation activation);

} // namespace ff::engine
