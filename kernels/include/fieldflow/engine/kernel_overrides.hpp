// Kernel choices a measurement or a test fixes in place of the engine's own (TrainOptions::kernels;
// ff-engine-bench fills them from its flags). Every field left unset is the engine's choice, a
// pure function of the model, the batch and the device's features; the product sets none. A field
// that cannot hold where it is asked for (a tile the device cannot run, a form the model has no
// use for) is an EngineError naming it, so a measurement never runs another configuration than
// asked. docs/engine.md describes each choice.
#pragma once

#include <cstdint>
#include <optional>

namespace ff::engine {

struct KernelOverrides {
    // The training tile. A tile a subgroup (mlp_coopmat.glsl): `tile` samples a workgroup (16-128
    // on the portable kernels, a multiple of 32 up to 256 on the tensor cores) and where the
    // weights live (shared memory or the fp16 copy in device memory). Setting either asks for
    // that layout unless `shared_tile` says otherwise.
    std::optional<uint32_t> tile;
    std::optional<bool> weights_in_shared;
    // One tile a workgroup shared by its subgroups (mlp_coopmat_split.glsl): on or off, its parts
    // (subgroups a column block, 1..8) and its most samples (a multiple of 32).
    std::optional<bool> shared_tile;
    std::optional<uint32_t> row_split;
    std::optional<uint32_t> shared_rows;
    // What a tensor-core step holds in registers and how it schedules its phases (TrainTiling's
    // fields of the same names).
    std::optional<bool> weight_fragments;
    std::optional<bool> bias_fragments;
    std::optional<bool> first_weight_fragments;
    std::optional<bool> ends_by_columns;
    std::optional<bool> narrow_ends;
    std::optional<bool> encoding_inputs_by_rows;
    std::optional<bool> stage_inputs;
    std::optional<bool> late_encoding;
    std::optional<bool> stage_targets;
    std::optional<bool> prefetch; // each tile's inputs loaded a tile ahead
    // Sine MLPs (SIREN) on the portable kernels of a tensor-core device.
    std::optional<bool> siren_portable;

    // The encoding's gradient sums: local (in the step's shared memory), deferred (a pass of their
    // own; its sets), and the reads of a cell a workgroup that earn a cell either (0: every cell
    // that fits).
    std::optional<bool> local_gradients;
    std::optional<bool> deferred_gradients;
    std::optional<uint32_t> deferred_sets;
    std::optional<double> gradient_min_hits;

    // The optimizer: MLP parameters a workgroup (a power of two, 1..256), and whether a visit
    // reads a cell's record beside its claim (optimizer.comp's ENC_READ_BESIDE_CLAIM).
    std::optional<uint32_t> optimizer_params_per_group;
    std::optional<bool> read_beside_claim;

    // The samples' order (sampling.glsl): the strata's blocks' log2 (5..30), and whether a
    // pixel's column and row are staged as 16-bit halves rather than as its index.
    std::optional<uint32_t> samples_block;
    std::optional<bool> samples_xy16;

    // Rows a render band holds at most (renders and the full-image error).
    std::optional<uint32_t> render_band_rows;
};

} // namespace ff::engine
