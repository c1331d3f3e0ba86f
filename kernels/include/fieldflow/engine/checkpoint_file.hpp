// fieldflow training checkpoint: a trainer's whole state (model, step, Adam moments) plus the
// caller's own bytes, as one self-checking byte string, so an interrupted run can go on where it
// stopped. Byte-level layout: docs/model-format.md ("Training checkpoints"). Pure C++ (plus
// xxhash): no Vulkan calls.
//
//   ff::engine::Checkpoint c;
//   c.kind = ff::engine::ModelKind::grid;
//   c.trainer = trainer.state();
//   c.image_width = image.width; c.image_height = image.height;
//   std::vector<std::byte> bytes = ff::engine::encode_checkpoint(c);
//   ff::engine::Checkpoint back = ff::engine::decode_checkpoint(bytes, "checkpoint.ffckpt");
//   ff::engine::Trainer resumed(device, config, options, image, &back.trainer);
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/engine/splats.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ff::engine {

// The format version this build writes; it reads files of the same major version.
inline constexpr uint32_t kCheckpointFormatMajor = 1;
inline constexpr uint32_t kCheckpointFormatMinor = 0;

// Any reason a byte string is not a usable checkpoint. The message starts with the source name
// ("run.ffckpt: truncated (expected 1234 bytes, got 1000)").
struct CheckpointError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Checkpoint {
    ModelKind kind = ModelKind::grid;
    TrainerState trainer;       // grid and siren
    SplatTrainerState splats;   // splats (its model's width and height are the image's)
    uint32_t image_width = 0;   // the training image, as the model file records it
    uint32_t image_height = 0;
    // The caller's own data, stored and checksummed but not interpreted (e.g. a training log).
    std::vector<std::byte> extra;
};

// Serialises `checkpoint`. Throws CheckpointError if it is not self-consistent (see
// encode_model_file; also moment counts that differ from the parameter counts, or non-finite
// moments), so an unreadable checkpoint is never written.
std::vector<std::byte> encode_checkpoint(const Checkpoint& checkpoint);

// Parses and checks a checkpoint (the input is treated as hostile: every size is checked against
// the bytes present before use). Throws CheckpointError naming the problem: not a checkpoint,
// unsupported version, truncated, checksum mismatch (corrupt), an invalid embedded model, or
// moment counts that do not match the model.
Checkpoint decode_checkpoint(std::span<const std::byte> bytes, std::string_view source_name);

} // namespace ff::engine
