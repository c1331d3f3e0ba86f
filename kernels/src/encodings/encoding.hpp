// One input encoding of the engine, described once. Everything outside kernels/src/encodings/
// (model, trainer, render, model file, checkpoints, tests) asks the descriptor of a config's
// EncodingKind instead of knowing the encoding's shape; docs/engine.md walks through adding one.
//
// An encoding is three parts:
//   - this descriptor (kernels/src/encodings/<name>.cpp), registered in registry.cpp;
//   - its shader (kernels/shaders/encoding_<name>.glsl), selected by `glsl_define`;
//   - its double-precision CPU reference (reference_encode / reference_backward below), against
//     which tests/engine checks the shader's values and gradients.
#pragma once

#include "fieldflow/engine/engine.hpp"
#include "vulkan/shader_compiler.hpp"

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ff::engine::detail {

// Model-file header access for an encoding's own keys (implemented by model_file.cpp).
struct HeaderWriter {
    virtual ~HeaderWriter() = default;
    virtual void u32(std::string_view key, uint32_t value) = 0;
    virtual void real(std::string_view key, float value) = 0;
    virtual void boolean(std::string_view key, bool value) = 0;
};
struct HeaderReader {
    virtual ~HeaderReader() = default;
    virtual uint32_t u32(std::string_view key) = 0;          // errors name the key and value
    virtual float positive_real(std::string_view key) = 0;
    virtual bool boolean(std::string_view key) = 0;
};

// Deterministic uniform draws for initialisation (model.cpp's generator).
struct UniformSource {
    virtual ~UniformSource() = default;
    virtual float uniform(float lo, float hi) = 0;
};

struct EncodingDescriptor {
    EncodingKind kind;
    std::string_view name;        // model-file value of `encoding`, Train's names, logs
    std::string_view glsl_define; // selects kernels/shaders/encoding_<name>.glsl in encoding.glsl
    std::string_view parameters;  // what its parameters are called in messages ("feature grid")

    // Logical MLP inputs it produces.
    uint32_t (*input_width)(const ModelConfig&);
    // Leading inputs that carry gradients back into the encoding's parameters.
    uint32_t (*gradient_inputs)(const ModelConfig&);
    // Optimizer cells (each holds cell_features parameters and a record of training state,
    // encoding_state.hpp) and the parameter count = cells * cell_features.
    uint64_t (*cells)(const ModelConfig&);
    uint32_t (*cell_features)(const ModelConfig&);
    // Cells one sample reads (at most; the training step touches batch times this): with the
    // cell count it decides the form of dense Adam (TrainOptions::dense_adam).
    uint32_t (*cells_read)(const ModelConfig&);
    // Appends "what is wrong; " for each problem of its own fields.
    void (*validate)(const ModelConfig&, std::ostringstream& problems);
    // Fills `params` (already sized) with the initial values.
    void (*initialise)(const ModelConfig&, UniformSource&, std::vector<float>& params);
    // Shader defines beyond glsl_define (sizes, per-level tables).
    void (*defines)(const ModelConfig&, Defines&);
    // The encoding in a few words for logs and reports ("200x137x3 grid").
    std::string (*describe)(const ModelConfig&);
    // Model-file keys of its configuration.
    void (*write_header)(const ModelConfig&, HeaderWriter&);
    void (*read_header)(HeaderReader&, uint32_t format_minor, ModelConfig&);
    // CPU reference in double: inputs x (input_width values) at (u, v), and the accumulation of
    // dLoss/dparams from dLoss/dx (gradient_inputs values) at (u, v).
    void (*reference_encode)(const ModelConfig&, const std::vector<double>& params, double u,
                             double v, std::vector<double>& x);
    void (*reference_backward)(const ModelConfig&, double u, double v, const std::vector<double>& dx,
                               std::vector<double>& dparams);
    // The cells of a cell's fixed-point gradient group (cells that share a step's reads, such as
    // a hash level: encoding.glsl's enc_group_cells(enc_cell_group(cell))).
    uint64_t (*group_cells)(const ModelConfig&, uint64_t cell);
    // DenseAdam::automatic takes the lazy form once the cells number this many times a step's
    // reads (batch x cells_read): where the lazy form's visits of a step's cells cost less than
    // the eager pass over all of them, which depends on the encoding (measured on the H100; on a
    // CPU driver, lazy_adam_ratio_on_cpu below).
    double lazy_adam_ratio;
    // The leading gradient inputs that the first `groups` groups alone read (a hash grid's first
    // levels' features), which the training step may hand to the deferred sums instead of adding
    // them itself (TrainTiling::deferred; encoding.glsl's ENC_DEFERRED_GROUPS); nullptr where the
    // groups share their inputs (its shader then has no deferred groups).
    uint32_t (*group_inputs)(const ModelConfig&, uint32_t groups) = nullptr;
    // Where lazy dense Adam's optimizer visits the next step's cells, each cell's parameters live
    // in its training-state record (encoding_state.hpp) rather than in an array of their own: a
    // visit then reads and writes one record, the step reads a cell's parameters beside its
    // gradient words. For an encoding whose samples read few cells at random (the dense grid);
    // a hash grid's forward pass reads its coarse levels' parameters from a compact array.
    bool parameters_in_records = false;
    // Where lazy dense Adam's optimizer visits the next step's cells, a visit reads a cell's record
    // beside its claim, not once it has won it: one round trip to memory instead of two, right
    // where a step's samples seldom meet in a cell (the dense grid on a large photo), wrong where
    // they often do, as on a hash grid's coarse levels, whose losing claims' reads then cost more
    // (bench/archive/RESULTS.md, "a step's cells claimed by whole warps").
    bool visits_read_beside_claim = false;
    // lazy_adam_ratio on a CPU driver (lavapipe), where the visits cost more next to the eager
    // pass than on a GPU; 0: lazy_adam_ratio.
    double lazy_adam_ratio_on_cpu = 0;
    // Cells across the image's width that set how far apart the samples a subgroup takes at once
    // must lie (sampling.cpp): the dense grid's width, a hash grid's levels' geometric-mean
    // resolution; nullptr where it has no cells.
    uint32_t (*cells_across)(const ModelConfig&) = nullptr;
    // The model-file minor version that added it (docs/model-format.md): a file with it says at
    // least 1.<format_minor>, the oldest version that holds it (an older reader refuses it by its
    // encoding's name). 0 for the encodings of 1.2 and before, which every file this build writes
    // says already.
    uint32_t format_minor = 0;

    uint64_t parameter_count(const ModelConfig& c) const { return cells(c) * cell_features(c); }
};

// The descriptor of a kind; throws EngineError for a kind no descriptor handles.
const EncodingDescriptor& encoding_of(EncodingKind kind);
inline const EncodingDescriptor& encoding_of(const ModelConfig& c) { return encoding_of(c.encoding.kind); }
// By model-file name; nullptr if none.
const EncodingDescriptor* find_encoding(std::string_view name);
// Every registered encoding, in kind order (for messages: "dense_grid, coords or hash_grid").
const std::vector<const EncodingDescriptor*>& all_encodings();
std::string encoding_names(std::string_view last_separator = " or ");

} // namespace ff::engine::detail
