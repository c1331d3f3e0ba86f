// The Train node's params: declared once here (names, defaults, ranges, docs) and read back into
// the engine's ModelConfig / TrainOptions with every constraint the declarations cannot express.
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/node.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ff::neural {

// The representation Train learns (param `model`).
enum class ModelChoice { grid, siren, splats };

struct TrainParams {
    ModelChoice choice = ModelChoice::grid;
    uint32_t splat_count = 10000;           // model: splats
    std::string grid;                       // "auto" or "WxH"
    ff::engine::ModelConfig model;          // grid size still 0: it depends on the image
    ff::engine::TrainOptions options;
    std::string device;                     // "" = the run's --device
    std::string snapshots;                  // folder, "" = none
    std::vector<int64_t> snapshot_steps;    // empty = log-spaced default
    uint32_t snapshot_size = 1024;          // longest side of snapshot images; 0 = full size
    uint32_t eval_interval = 0;
    uint32_t log_interval = 0;              // log loss every N steps; 0 = none
    uint32_t checkpoint_interval = 5000;    // checkpoint every N steps (resume after an interrupt); 0 = off
    uint64_t limit = 0;                     // train on the first N pixels (whole rows); 0 = all
    uint32_t cpu_steps = 0;                 // on a CPU driver at most this many steps; 0 = as given
    uint32_t cpu_batch = 2048;              // ... and at most this batch (cpu_budget.hpp)
    // What the graph asked for when the CPU budget cut it (fit_to_cpu); empty/0: nothing was cut.
    std::string cpu_budget_note;
    uint32_t asked_steps = 0, asked_batch = 0;
    std::string log;                        // CSV path, "" = <snapshots>/training_log.csv or none
};

// Adds the Train params to `op`. Defaults of the training options are the engine's own.
OpBuilder& declare_train_params(OpBuilder& op);

// Reads and checks the params (throws ff::ParamError naming the param).
TrainParams read_train_params(const Node& node);

// The hash table sized to an image (hash_log2_table_size 0): of 2^10 .. 2^24 rows a level, the
// one whose model's parameter count is nearest `dense_count`, the dense grid's for that image (the
// smaller on a tie). At equal parameter counts the hash grid learned 32 of 33 photo-and-size pairs
// better than the dense grid on the GPU (bench/RESULTS.md, "model choice"), and sized this way its
// file and its baseline stay as large as the dense model's would be.
uint32_t hash_table_for_count(const ff::engine::ModelConfig& hash, uint64_t dense_count);

// The model configuration for an image of the given size (resolves grid "auto" and a hash table
// sized to the image).
ff::engine::ModelConfig model_config_for_image(const TrainParams& params, uint32_t image_width,
                                               uint32_t image_height);

// Activation by name ("relu", ...), as in the model file header.
ff::engine::Activation activation_from_name(const std::string& name);

} // namespace ff::neural
