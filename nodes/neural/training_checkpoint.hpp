// The Train node's checkpoints: the engine's trainer state (checkpoint_file.hpp) plus what the node
// needs to continue its outputs seamlessly after an interrupt (the training log so far, which
// snapshots are written, the time trained), in one file of the node's state folder, written
// atomically and flushed to disk.
#pragma once

#include "training_log.hpp"

#include <fieldflow/engine/checkpoint_file.hpp>
#include <fieldflow/node.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

// The node's side of a checkpoint, stored as JSON in the engine checkpoint's `extra` bytes.
struct TrainingProgress {
    std::vector<TrainingLogRow> log;  // rows so far, in order
    std::vector<uint32_t> snapshots;  // steps whose snapshot files were written
    double train_seconds = 0;         // training time so far (earlier runs included)
    double final_loss = 0;            // loss of the last chunk
    std::optional<double> final_psnr; // last measured full-image PSNR
};

struct TrainingCheckpoint {
    ff::engine::Checkpoint engine; // `extra` is empty here: it carries `progress`
    TrainingProgress progress;
};

// <state folder>/checkpoint.ffckpt
std::filesystem::path checkpoint_path(const std::filesystem::path& state_dir);

// This work's checkpoint file: in the node's state folder when checkpoints are on (`interval` > 0)
// and the run has one (a disk cache); nullopt otherwise.
std::optional<std::filesystem::path> checkpoint_file(const Node& node, uint32_t interval);

// Writes the checkpoint at `path` atomically (temporary file + fsync + rename). Throws ff::Error.
void save_checkpoint(const std::filesystem::path& path, TrainingCheckpoint checkpoint);

// save_checkpoint, where a checkpoint that cannot be written costs only the resume: a warning on
// `node` naming the step, and training goes on. True if it was written.
bool save_checkpoint_or_warn(const Node& node, const std::filesystem::path& path,
                             TrainingCheckpoint checkpoint, uint32_t step);

// nullopt if there is no checkpoint at `path`; throws ff::Error saying why one that exists cannot
// be used (unreadable, truncated, corrupt, another version, malformed progress).
std::optional<TrainingCheckpoint> load_checkpoint(const std::filesystem::path& path);

// The checkpoint at `path` if it can continue this run: a `kind` model trained on a width x height
// image, at a step no later than `steps`. One that cannot (unreadable, damaged, another kind, image
// size or length) is a warning on `node` and nullopt, a fresh start: never a failure.
std::optional<TrainingCheckpoint> usable_checkpoint(const Node& node, const std::filesystem::path& path,
                                                    ff::engine::ModelKind kind, uint32_t width,
                                                    uint32_t height, uint32_t steps);

// "ignoring the checkpoint PATH (WHY); starting from step 0", as a warning on `node`.
void warn_ignored_checkpoint(const Node& node, const std::filesystem::path& path, const std::string& why);

// The progress as the JSON text stored in a checkpoint, and back (throws ff::Error if malformed).
std::string progress_json(const TrainingProgress& progress);
TrainingProgress progress_from_json(const std::string& text);

} // namespace ff::neural
