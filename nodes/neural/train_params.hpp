// The params of the training ops (Train, TrainSiren, TrainSplats): declared once here (names,
// defaults, ranges, docs) and read back into the engine's ModelConfig / TrainOptions with every
// constraint the declarations cannot express. The params every training op shares (steps, seed,
// the CPU budget, snapshots, the log, checkpoints) are declared by one function, each op's own
// by another.
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/node.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

// The representation an op learns: Train's grid/hash field, TrainSiren's, TrainSplats'.
enum class ModelChoice { grid, siren, splats };

// What an op trains on a CPU Vulkan driver (lavapipe) unless the graph says otherwise (params
// cpu_steps, cpu_batch; cpu_budget.hpp): each about a minute on a two-core machine at the op's
// defaults by the measured rates training_estimate.cpp holds, where the full runs take hours
// there. Splat steps see the whole image, so their budget has no batch.
struct CpuBudget {
    uint32_t steps = 0; // 0: no budget, the run as given
    uint32_t batch = 0; // pixels a step at most; 0 for splats, whose steps see the whole image
};
inline constexpr CpuBudget kGridCpuBudget{2000, 2048};
inline constexpr CpuBudget kSirenCpuBudget{500, 1024};
inline constexpr CpuBudget kSplatsCpuBudget{100, 0};

struct TrainParams {
    ModelChoice choice = ModelChoice::grid;
    uint32_t splat_count = 10000;           // TrainSplats
    std::string grid;                       // "auto" or "WxH"
    ff::engine::ModelConfig model;          // grid size still 0: it depends on the image
    ff::engine::TrainOptions options;       // TrainSplats: steps and seed
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

// Adds each op's params to `op` (its own, then the shared ones). Defaults of the model and the
// training options are the engine's own.
OpBuilder& declare_train_params(OpBuilder& op);  // Train: the grid/hash field
OpBuilder& declare_siren_params(OpBuilder& op);  // TrainSiren
OpBuilder& declare_splats_params(OpBuilder& op); // TrainSplats

// Reads and checks the params of a node of the op `choice` names (throws ff::ParamError naming
// the param).
TrainParams read_train_params(const Node& node, ModelChoice choice);

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

// The encoding named by Train's `encoding` param: the engine's names (encoding_names.hpp) but
// coords (TrainSiren's), or the older "dense" / "hash" for the first two. nullopt for any other name.
std::optional<ff::engine::EncodingKind> train_encoding(const std::string& name);

} // namespace ff::neural
