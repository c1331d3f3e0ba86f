#include "train_params.hpp"

#include "common/grid_size.hpp"
#include "training_schedule.hpp"

#include <fieldflow/engine/encoding_names.hpp>
#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/engine/splats.hpp>

#include <charconv>
#include <cstdlib>
#include <filesystem>

namespace ff::neural {

namespace fe = ff::engine;

namespace {

// A float default as the double it reads as in text ("0.01", not 0.0099999997764825821).
double float_default(float value) {
    char buffer[32];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return std::strtod(std::string(buffer, end).c_str(), nullptr);
}

std::string encoding_word(fe::EncodingKind kind) { return std::string(fe::encoding_name(kind)); }

// The `applies_when` condition of the params of one encoding: its name or its older one.
std::string when_encoding(fe::EncodingKind kind, const char* older) {
    return "encoding=" + encoding_word(kind) + "|" + older;
}

// The params every training op takes: its length, CPU budget, seed, device, snapshots, log,
// checkpoints and dataset limit; and where `cpu.batch` is set (a model trained on random pixels:
// a splat step sees the whole image and keeps its rates) the batch and the learning-rate schedule.
OpBuilder& declare_run_params(OpBuilder& op, uint32_t steps, uint64_t seed, const CpuBudget& cpu) {
    const fe::TrainOptions defaults;
    const bool batched = cpu.batch > 0;
    op.param_int("steps", steps, 1, 100000000, "training steps");
    if (batched) op.param_int("batch", defaults.batch, 1, 1 << 22, "random pixels per step");
    op.param_int("cpu_steps", cpu.steps, 0, 100000000,
                 "on a CPU Vulkan driver (lavapipe), train at most this many steps" +
                     std::string(batched ? ", at most cpu_batch pixels each," : "") +
                     " and say so (a run of minutes where the full one takes hours); 0 = the run "
                     "as given on every device");
    if (batched)
        op.param_int("cpu_batch", cpu.batch, 1, 1 << 22, "on a CPU Vulkan driver with cpu_steps set: "
                     "random pixels per step at most")
            .param_float("lr_warmup", float_default(defaults.lr_warmup), 0, 1,
                         "the learning rates ramp up linearly over this fraction of the steps")
            .param_float("lr_decay_start", float_default(defaults.lr_decay_start), 0, 1,
                         "the learning rates hold until this fraction of the steps, then decay "
                         "exponentially")
            .param_float("lr_final_scale", float_default(defaults.lr_final_scale), 1e-6, 1,
                         "learning rates at the last step, as a fraction of their starting values");
    return op
        .param_int("seed", int64_t(seed), 0, INT64_MAX,
                   "seed of the initial parameters and of the pixel sampling")
        .param_string("device", std::string(""),
                      "compute device: 'auto', 'cpu' or an index; empty = the run's --device")
        .param_string("snapshots", std::string(""),
                      "folder for prediction_at_<step>.png, feature_at_<step>.png (dense grid) and "
                      "the training log (snapshots of an earlier run there are replaced; a run "
                      "resumed from a checkpoint keeps its own); empty = none. Where they go is not "
                      "part of the cache key: a cached result writes the same files here")
        .param_flags(FF_PARAM_SIDE_OUTPUT)
        .param_int_list("snapshot_steps", std::string("[]"), 0, 100000000,
                        "steps to snapshot (0 = before training); empty = 1, 10, 100, ..., last")
        .param_int("snapshot_size", 1024, 0, 65536,
                   "longest side of the snapshot images in pixels: the prediction is rendered at "
                   "that size (the image's aspect ratio), the feature grid scaled down to it; "
                   "0 = full size. Bounds the time and disk each snapshot costs on large images")
        .param_int("eval_interval", 1000, 0, 100000000,
                   "measure full-image PSNR every N steps (also at snapshots and the end); 0 = "
                   "only there")
        .param_int("log_interval", 0, 0, 100000000,
                   "log the training loss every N steps; 0 = none (progress only)")
        .param_flags(FF_PARAM_NOT_IN_KEY)
        .param_int("checkpoint_interval", 5000, 0, 100000000,
                   "save the training state every N steps (and when interrupted) in the node's "
                   "state folder in the disk cache, so an interrupted run of the same work resumes "
                   "there; 0 = never. Needs the disk cache (not with --no-cache)")
        .param_flags(FF_PARAM_NOT_IN_KEY)
        .param_int("limit", 0, 0, INT64_MAX,
                   "train on the first N pixels in row order, rounded up to whole rows (a smaller "
                   "dataset); 0 = the whole image")
        .param_string("log", std::string(""),
                      "training log CSV path (a loss/PSNR curve .png is written beside it); empty "
                      "= <snapshots>/training_log.csv when snapshots is set")
        .param_flags(FF_PARAM_SIDE_OUTPUT | FF_PARAM_WRITES_FILE);
}

// Train's `model` said which of three models it learnt; SIREN and splats are ops of their own now.
// A graph written for that Train is told which op to use, at the param.
void check_model_param(const Node& node) {
    const std::string model = node.string("model");
    if (model == "grid") return;
    if (model == "siren")
        throw ParamError("model", "Train no longer learns SIREN; use the op TrainSiren (its learning "
                                  "rate is `lr`; `fieldflow nodes TrainSiren` lists its params)");
    if (model == "splats")
        throw ParamError("model", "Train no longer learns splats; use the op TrainSplats "
                                  "(`fieldflow nodes TrainSplats` lists its params)");
    throw ParamError("model", "Train learns the grid/hash field ('grid'; the `encoding` param chooses "
                              "which); SIREN and splats are the ops TrainSiren and TrainSplats");
}

void read_grid_model(const Node& node, TrainParams& p) {
    check_model_param(node);
    p.grid = node.string("grid");
    try {
        ff::nodes::parse_grid_spec(p.grid);
    } catch (const Error& e) {
        throw ParamError("grid", e.what());
    }
    fe::ModelConfig& m = p.model;
    m.encoding.kind = *train_encoding(node.string("encoding")); // the enum admits no other
    if (m.encoding.kind == fe::EncodingKind::hash_grid) {
        fe::HashGridConfig& h = m.encoding.hash;
        h.levels = uint32_t(node.integer("hash_levels"));
        h.features = uint32_t(node.integer("hash_features"));
        h.log2_table_size = uint32_t(node.integer("hash_log2_table_size"));
        if (h.log2_table_size != 0 && h.log2_table_size < 10)
            throw ParamError("hash_log2_table_size", "hash_log2_table_size " + std::to_string(h.log2_table_size) +
                                                         " is neither 0 (sized to the image) nor 10..24");
        h.base_resolution = uint32_t(node.integer("hash_base_resolution"));
        h.per_level_scale = float(node.number("hash_per_level_scale"));
    }
    if (m.encoding.kind == fe::EncodingKind::frequency)
        m.encoding.frequency.octaves = uint32_t(node.integer("frequency_octaves"));
    // The dense grid's own params, taken only for it: the other encodings ignore them, and their
    // model files and checkpoints do not store them, so a value set here (a warning says it has no
    // effect) must not reach the configuration a resumed run is compared with.
    if (m.encoding.kind == fe::EncodingKind::dense_grid) {
        m.grid_channels = uint32_t(node.integer("grid_channels"));
        m.encoding.subcell = node.flag("subcell");
        m.encoding.fourier_octaves = uint32_t(node.integer("fourier_octaves"));
    }
    m.hidden_width = uint32_t(node.integer("hidden_width"));
    m.hidden_layers = uint32_t(node.integer("hidden_layers"));
    m.hidden_activation = activation_from_name(node.string("hidden_activation"));
    m.output_activation = activation_from_name(node.string("output_activation"));
    fe::TrainOptions& o = p.options;
    o.lr_mlp = float(node.number("lr_mlp"));
    o.lr_grid = float(node.number("lr_grid"));
    o.hidden_bias = float(node.number("hidden_bias"));
    o.grid_adam = node.string("grid_adam") == "sparse" ? fe::GridAdam::sparse : fe::GridAdam::dense;
}

void check_hidden_width(uint32_t width) {
    if (width != 16 && width != 32 && width != 64 && width != 128)
        throw ParamError("hidden_width", "hidden_width " + std::to_string(width) +
                                             " is not one of 16, 32, 64, 128");
}

} // namespace

std::optional<fe::EncodingKind> train_encoding(const std::string& name) {
    if (name == "dense") return fe::EncodingKind::dense_grid;
    if (name == "hash") return fe::EncodingKind::hash_grid;
    const std::optional<fe::EncodingKind> kind = fe::find_encoding(name);
    if (kind == fe::EncodingKind::coords) return std::nullopt; // TrainSiren's
    return kind;
}

OpBuilder& declare_train_params(OpBuilder& op) {
    const fe::TrainOptions defaults;
    const fe::ModelConfig model;
    const std::string activations = "relu|sigmoid|sine|none";
    const std::string dense = encoding_word(fe::EncodingKind::dense_grid),
                      hash = encoding_word(fe::EncodingKind::hash_grid),
                      frequency = encoding_word(fe::EncodingKind::frequency);
    const std::string when_dense = when_encoding(fe::EncodingKind::dense_grid, "dense"),
                      when_hash = when_encoding(fe::EncodingKind::hash_grid, "hash");
    op.param_string("model", std::string("grid"),
                    "'grid', the only model Train learns; SIREN and Gaussian splats are the ops "
                    "TrainSiren and TrainSplats (a graph that still says siren or splats here is "
                    "told so)")
        .param_flags(FF_PARAM_NOT_IN_KEY) // any other value is an error: it never changes the result
        .param_enum("encoding", dense, dense + "|" + hash + "|" + frequency + "|dense|hash",
                    "'" + dense + "' (a feature grid of `grid` cells, `grid_channels` each, plus "
                    "`subcell` and `fourier_octaves` terms), '" + hash + "' (Instant-NGP's "
                    "multiresolution hash grid: the hash_* params) or '" + frequency + "' (NeRF's "
                    "positional encoding, no learnable parameters: frequency_octaves), the names "
                    "model files and stats use; 'dense' and 'hash' are older names of the first two")
        .param_string("grid", std::string("auto"),
                      "feature grid size: 'auto' (image size / 4, as BilinearBaseline) or 'WxH'")
        .applies_when(when_dense)
        .param_int("hash_levels", model.encoding.hash.levels, 1, 32,
                   "resolution levels (levels x hash_features MLP inputs, at most 64)")
        .applies_when(when_hash)
        .param_int("hash_features", model.encoding.hash.features, 1, 8,
                   "features per level: 1, 2, 4 or 8")
        .applies_when(when_hash)
        .param_int("hash_log2_table_size", model.encoding.hash.log2_table_size, 0, 24,
                   "rows per level at most 2^N, 10..24 (a coarse level that fits is indexed "
                   "densely, a finer one hashed); 0 = sized to the image: the table whose model has "
                   "about as many parameters as the dense grid (`grid`) would have")
        .applies_when(when_hash)
        .param_int("hash_base_resolution", model.encoding.hash.base_resolution, 2, 65536,
                   "cells per side of the coarsest level")
        .applies_when(when_hash)
        .param_float("hash_per_level_scale", float_default(model.encoding.hash.per_level_scale), 1, 4,
                     "resolution growth from one level to the next")
        .applies_when(when_hash)
        .param_int("frequency_octaves", model.encoding.frequency.octaves, 1, 14,
                   "sin/cos octaves per axis, 2^k pi for k below it (2 + 4 x octaves MLP inputs)")
        .applies_when("encoding=" + frequency)
        .param_int("grid_channels", model.grid_channels, 1, 16, "features per grid cell")
        .applies_when(when_dense)
        .param_bool("subcell", model.encoding.subcell,
                    "add sinusoids of the position inside a grid cell (2 inputs)")
        .applies_when(when_dense)
        .param_int("fourier_octaves", model.encoding.fourier_octaves, 0, 8,
                   "global Fourier feature octaves per axis (each a sin/cos pair per axis)")
        .applies_when(when_dense)
        .param_int("hidden_width", model.hidden_width, 16, 128, "MLP hidden width: 16, 32, 64 or 128")
        .param_int("hidden_layers", model.hidden_layers, 1, 8, "MLP hidden layers")
        .param_enum("hidden_activation", std::string(fe::activation_name(model.hidden_activation)),
                    activations, "activation after each hidden layer")
        .param_enum("output_activation", std::string(fe::activation_name(model.output_activation)),
                    activations, "activation of the RGB output")
        .param_float("lr_mlp", float_default(defaults.lr_mlp), 1e-8, 10, "Adam learning rate of the MLP")
        .param_float("lr_grid", float_default(defaults.lr_grid), 1e-8, 10,
                     "Adam learning rate of the encoding (feature grid or hash tables)")
        .param_float("hidden_bias", float_default(defaults.hidden_bias), -1, 1,
                     "initial bias of the hidden ReLU layers (slightly positive: fewer units start "
                     "switched off; 0 starts like Instant-NGP's bias-free MLP)")
        .param_enum("grid_adam", defaults.grid_adam == fe::GridAdam::dense ? "dense" : "sparse",
                    "dense|sparse",
                    "encoding cells not sampled in a step: 'dense' steps them with a zero gradient "
                    "(momentum decays), 'sparse' leaves them and their moments untouched");
    return declare_run_params(op, defaults.steps, defaults.seed, kGridCpuBudget);
}

OpBuilder& declare_siren_params(OpBuilder& op) {
    const fe::TrainOptions defaults;
    const fe::ModelConfig siren = fe::siren_config(); // the engine's SIREN shape
    op.param_int("hidden_width", siren.hidden_width, 16, 128, "sine layers' width: 16, 32, 64 or 128")
        .param_int("hidden_layers", siren.hidden_layers, 1, 8, "hidden sine layers")
        .param_float("omega", float_default(siren.first_omega), 0.1, 1000,
                     "frequency factor of the sine layers, sin(omega (W x + b))")
        .param_float("lr", 1e-3, 1e-8, 10,
                     "Adam learning rate (sine networks diverge at the grid model's rates)");
    return declare_run_params(op, defaults.steps, defaults.seed, kSirenCpuBudget);
}

OpBuilder& declare_splats_params(OpBuilder& op) {
    const fe::SplatTrainOptions defaults;
    const fe::SplatConfig config;
    op.param_int("splats", config.count, 1, 1 << 24, "number of Gaussians");
    return declare_run_params(op, defaults.steps, defaults.seed, kSplatsCpuBudget);
}

fe::Activation activation_from_name(const std::string& name) {
    for (fe::Activation a : {fe::Activation::none, fe::Activation::relu, fe::Activation::sigmoid,
                             fe::Activation::sine})
        if (fe::activation_name(a) == name) return a;
    throw Error("unknown activation '" + name + "'");
}

TrainParams read_train_params(const Node& node, ModelChoice choice) {
    TrainParams p;
    p.choice = choice;
    fe::TrainOptions& o = p.options;
    o.steps = uint32_t(node.integer("steps"));
    o.seed = uint64_t(node.integer("seed"));
    if (choice != ModelChoice::splats) {
        o.batch = uint32_t(node.integer("batch"));
        o.lr_warmup = float(node.number("lr_warmup"));
        o.lr_decay_start = float(node.number("lr_decay_start"));
        o.lr_final_scale = float(node.number("lr_final_scale"));
        p.cpu_batch = uint32_t(node.integer("cpu_batch"));
    }
    fe::ModelConfig& m = p.model;
    if (choice == ModelChoice::grid) {
        read_grid_model(node, p);
    } else if (choice == ModelChoice::siren) {
        m = fe::siren_config(uint32_t(node.integer("hidden_width")), uint32_t(node.integer("hidden_layers")),
                             float(node.number("omega")));
        o.lr_mlp = float(node.number("lr"));
    } else {
        p.splat_count = uint32_t(node.integer("splats"));
    }
    if (choice != ModelChoice::splats) check_hidden_width(m.hidden_width);

    p.device = node.string("device");
    p.snapshots = node.string("snapshots");
    p.snapshot_steps = node.integers("snapshot_steps");
    p.snapshot_size = uint32_t(node.integer("snapshot_size"));
    resolve_snapshot_steps(p.snapshot_steps, o.steps); // throws ParamError for steps past the end
    p.eval_interval = uint32_t(node.integer("eval_interval"));
    p.log_interval = uint32_t(node.integer("log_interval"));
    p.checkpoint_interval = uint32_t(node.integer("checkpoint_interval"));
    p.limit = uint64_t(node.integer("limit"));
    p.cpu_steps = uint32_t(node.integer("cpu_steps"));
    p.log = node.string("log");
    if (p.log.empty() && !p.snapshots.empty())
        p.log = (std::filesystem::path(p.snapshots) / "training_log.csv").string();
    if (choice == ModelChoice::splats) return p;

    // The engine's own rules on the rest of the configuration, checked with a placeholder (smallest valid) grid.
    fe::ModelConfig probe = m;
    if (m.encoding.kind == fe::EncodingKind::dense_grid) probe.grid_width = probe.grid_height = 2;
    if (m.encoding.kind == fe::EncodingKind::hash_grid && m.encoding.hash.log2_table_size == 0)
        probe.encoding.hash.log2_table_size = 10; // sized to the image later
    if (std::string problem = probe.validate(); !problem.empty())
        throw Error("invalid model configuration: " + problem);
    return p;
}

uint32_t hash_table_for_count(const fe::ModelConfig& hash, uint64_t dense_count) {
    fe::ModelConfig c = hash;
    uint32_t best = 10;
    uint64_t best_gap = UINT64_MAX;
    for (uint32_t t = 10; t <= 24; ++t) {
        c.encoding.hash.log2_table_size = t;
        const uint64_t count = c.parameter_count();
        const uint64_t gap = count > dense_count ? count - dense_count : dense_count - count;
        if (gap < best_gap) best = t, best_gap = gap;
    }
    return best;
}

fe::ModelConfig model_config_for_image(const TrainParams& params, uint32_t image_width,
                                       uint32_t image_height) {
    fe::ModelConfig config = params.model;
    if (config.encoding.kind == fe::EncodingKind::hash_grid && config.encoding.hash.log2_table_size == 0) {
        TrainParams dense = params;
        dense.model.encoding.kind = fe::EncodingKind::dense_grid;
        config.encoding.hash.log2_table_size =
            hash_table_for_count(config, model_config_for_image(dense, image_width, image_height).parameter_count());
    }
    if (config.encoding.kind != fe::EncodingKind::dense_grid) return config; // no grid to size
    ff::nodes::GridSize grid = ff::nodes::resolve_grid_size(params.grid, image_width, image_height);
    config.grid_width = grid.width;
    config.grid_height = grid.height;
    if (std::string problem = config.validate(); !problem.empty())
        throw Error("invalid model configuration for a " + std::to_string(image_width) + "x" +
                    std::to_string(image_height) + " image: " + problem);
    return config;
}

} // namespace ff::neural
