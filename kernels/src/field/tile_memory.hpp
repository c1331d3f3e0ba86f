// The shared (workgroup) memory of the tensor-core kernels, worked out here and nowhere else: the
// tile choosers count its bytes to pick a tile that fits, and the kernel requests pass its sizes,
// strides and column offsets to the shaders as defines, so the shaders declare their arrays
// without layout arithmetic of their own. ShaderVariants.TileMemoryIsWhatTheLayoutSays compiles
// the kernels and checks the bytes their SPIR-V declares against bytes().
#pragma once

#include "fieldflow/engine/engine.hpp"
#include "vulkan/shader_compiler.hpp"

#include <cstdint>

namespace ff::engine::detail {

// The portable training step (train_step_portable.glsl): a tile of `tile` samples a workgroup,
// fp32, each layer's inputs and deltas by feature, and the weights where they are in shared memory.
struct PortableTileLayout {
    uint32_t tile = 0;
    uint32_t input_rows = 0;    // the widest matrix input (logical)
    uint32_t delta_rows = 0;    // the widest matrix output (logical)
    uint32_t weight_floats = 0; // the fp32 weights (0: read from device memory)

    uint32_t row_floats() const { return tile + 1; } // an odd stride: conflict-free column reads
    // In the shader's order: the weights, the inputs, the deltas, a loss a sample.
    uint32_t bytes() const { return 4u * (weight_floats + (input_rows + delta_rows) * row_floats() + tile); }
    // TILE_INPUT_ROWS, TILE_DELTA_ROWS, TILE_ROW_FLOATS.
    void add_defines(Defines& defines) const;
};

PortableTileLayout portable_tile_layout(const ModelConfig& config, uint32_t tile, bool weights_in_shared);

// A tile a subgroup (mlp_coopmat.glsl; training and rendering): each subgroup's 32 samples'
// slices, and the weights' fp16 copy with the fp32 biases where they are in shared memory.
struct SubgroupTileLayout {
    static constexpr uint32_t kSliceStride = 40; // halves a column: 32 samples + 8, 16-byte aligned
    static constexpr uint32_t kOutStride = 20;   // floats a row of the fp32 outputs' 16-sample block
    // With shared blocks the fp32 outputs pass through the delta slice: one of its columns holds one.
    static_assert(kOutStride * 2 == kSliceStride);
    uint32_t subgroups = 0;
    uint32_t slice_columns = 0;  // a subgroup's tile: the encoding's outputs, hidden outputs, deltas
    uint32_t weight_halves = 0;  // the weights' fp16 copy (0: read from device memory)
    uint32_t bias_floats = 0;    // the fp32 biases beside it, a row of the widest output a matrix
    uint32_t out_floats = 0;     // the last matrix's fp32 outputs (0: through the delta slice)

    uint32_t slice_halves() const { return subgroups * slice_columns * kSliceStride; }
    uint32_t bytes() const { return 2u * weight_halves + 4u * bias_floats + 2u * slice_halves() + 4u * out_floats; }
    // CM_SLICE_STRIDE, CM_SLICE_COLUMNS, CM_OUT_STRIDE, CM_SLICE_HALVES, CM_OUT_FLOATS, CM_BIAS_FLOATS.
    void add_defines(Defines& defines) const;
};

// The layout of `subgroups` subgroups' tiles for `config`'s MLP, its weights in shared memory or
// not, with explicit shared-memory blocks (the outputs through the delta slice) or not.
SubgroupTileLayout subgroup_tile_layout(const ModelConfig& config, uint32_t subgroups, bool weights_in_shared,
                                        bool shared_blocks);

// Where a training sample's target comes from, which sets the words a staged target takes.
enum class TargetSource { image_rgba8, image_rgba16, explicit_samples };

struct SharedTileLayout {
    uint32_t rows = 0;          // the tile's samples
    uint32_t row_stride = 0;    // halves a column: rows + 8 (16-byte aligned, conflict-free loads)
    uint32_t slice_columns = 0; // the slices: the encoding's outputs, the hidden outputs, the deltas
    uint32_t dx_col = 0;        // the encoding's input gradients' first column
    uint32_t stage_col = 0;     // the staged inputs' second set's first column (0: not staged)
    uint32_t columns = 0;       // every column: slices, input-gradient columns, staged set
    uint32_t subgroups = 0;     // the workgroup's subgroups, a loss each
    uint32_t target_words = 0;  // 32-bit words a staged target (0: targets not staged)
    bool pixels = false;        // staged pixels too, four tiles' sets (targets drawn from an image)

    // In the shader's order: the columns (fp16), the bias selectors (16 x 16 fp16), the
    // subgroups' losses, two tiles' targets, four tiles' pixels.
    uint32_t bytes() const {
        return 2u * columns * row_stride + 2u * 256u + 4u * subgroups + 4u * 2u * target_words * rows +
               (pixels ? 4u * 4u * rows : 0u);
    }
    // CM_ROW_STRIDE, CM_SLICE_COLUMNS, CM_DX_COL, CM_COLUMNS and, where staged, CM_STAGE_COL,
    // CM_TARGET_WORDS and CM_STAGE_PIXELS.
    void add_defines(Defines& defines) const;
};

// The layout of a tile of `rows` samples for `config`'s MLP run by `subgroups` subgroups, with the
// next tile's inputs staged (and its targets, from `source`), and the encoding's backward pass
// late. Throws EngineError for a combination the kernel cannot take.
SharedTileLayout shared_tile_layout(const ModelConfig& config, uint32_t rows, uint32_t subgroups, bool stage_inputs,
                                    bool late_encoding, bool stage_targets, TargetSource source);

// The most bytes shared_tile_layout takes over the target sources: the tile chooser's count, so
// that one tiling serves every image and the engine's tests' explicit samples.
uint32_t shared_tile_bytes(const ModelConfig& config, uint32_t rows, uint32_t subgroups, bool stage_inputs,
                           bool late_encoding, bool stage_targets);

} // namespace ff::engine::detail
