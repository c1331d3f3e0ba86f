#include "tile_memory.hpp"
#include "model_layout.hpp"

#include <algorithm>
#include <string>

namespace ff::engine::detail {

void PortableTileLayout::add_defines(Defines& d) const {
    d.push_back({"TILE_INPUT_ROWS", std::to_string(input_rows)});
    d.push_back({"TILE_DELTA_ROWS", std::to_string(delta_rows)});
    d.push_back({"TILE_ROW_FLOATS", std::to_string(row_floats())});
}

PortableTileLayout portable_tile_layout(const ModelConfig& c, uint32_t tile, bool weights_in_shared) {
    PortableTileLayout l;
    l.tile = tile;
    l.input_rows = std::max(c.input_width(), c.hidden_width);
    l.delta_rows = std::max(c.output_dims, c.hidden_width);
    if (weights_in_shared) l.weight_floats = mlp_layout(c).total;
    return l;
}

void SubgroupTileLayout::add_defines(Defines& d) const {
    auto s = [](uint32_t v) { return std::to_string(v); };
    d.push_back({"CM_SLICE_STRIDE", s(kSliceStride)});
    d.push_back({"CM_SLICE_COLUMNS", s(slice_columns)});
    d.push_back({"CM_OUT_STRIDE", s(kOutStride)});
    d.push_back({"CM_SLICE_HALVES", s(slice_halves())});
    d.push_back({"CM_OUT_FLOATS", s(out_floats)});
    d.push_back({"CM_BIAS_FLOATS", s(bias_floats)});
}

SubgroupTileLayout subgroup_tile_layout(const ModelConfig& c, uint32_t subgroups, bool weights_in_shared,
                                        bool shared_blocks) {
    SubgroupTileLayout l;
    l.subgroups = subgroups;
    l.slice_columns = c.padded_input_width() + c.hidden_layers * c.hidden_width + c.padded_output_width();
    // The biases' rows are as wide as the widest matrix output (mlp_coopmat.glsl's CM_BIAS_STRIDE).
    l.bias_floats = (c.hidden_layers + 1) * std::max(c.hidden_width, c.padded_output_width());
    if (weights_in_shared) l.weight_halves = mlp_layout(c).total;
    else l.bias_floats = 0;
    if (!shared_blocks) l.out_floats = subgroups * c.padded_output_width() * SubgroupTileLayout::kOutStride;
    return l;
}

void SharedTileLayout::add_defines(Defines& d) const {
    auto s = [](uint32_t v) { return std::to_string(v); };
    d.push_back({"CM_ROW_STRIDE", s(row_stride)});
    d.push_back({"CM_SLICE_COLUMNS", s(slice_columns)});
    d.push_back({"CM_DX_COL", s(dx_col)});
    d.push_back({"CM_COLUMNS", s(columns)});
    if (stage_col) d.push_back({"CM_STAGE_COL", s(stage_col)});
    if (target_words) d.push_back({"CM_TARGET_WORDS", s(target_words)});
    if (pixels) d.push_back({"CM_STAGE_PIXELS", "1"});
}

SharedTileLayout shared_tile_layout(const ModelConfig& c, uint32_t rows, uint32_t subgroups, bool stage_inputs,
                                    bool late_encoding, bool stage_targets, TargetSource source) {
    if ((late_encoding || stage_targets) && !stage_inputs)
        throw EngineError("shared_tile_layout: the late encoding pass and staged targets take staged inputs");
    const uint32_t in_pad = c.padded_input_width();
    SharedTileLayout l;
    l.rows = rows;
    l.row_stride = rows + 8;
    l.slice_columns = in_pad + c.hidden_layers * c.hidden_width + c.padded_output_width();
    l.subgroups = subgroups;
    l.columns = l.slice_columns;
    if (late_encoding) {
        // The input gradients in IN_PAD columns of their own after the slices, which nothing else
        // writes: the late subgroups read them past the next tile's barriers.
        l.dx_col = l.columns;
        l.columns += in_pad;
    } else if (stage_inputs) {
        // Over slice 2 (matrix 1's outputs, or with one hidden layer the deltas): every read of it
        // has passed by then, and the next tile writes it only after its first barriers.
        if (in_pad > (c.hidden_layers >= 2 ? c.hidden_width : c.padded_output_width()))
            throw EngineError("shared_tile_layout: the encoding's input gradients do not fit slice 2");
        l.dx_col = in_pad + c.hidden_width;
    }
    // At the step's end the sums pass through the slices as floats: the sample subgroups' blocks of
    // the last matrix (a 16 x 16 block a column block each) and every subgroup's bias sums.
    const uint32_t column_blocks = c.hidden_width / 16;
    if (((rows / 32) * column_blocks * 256u + subgroups * 256u) * 2u > l.slice_columns * l.row_stride)
        throw EngineError("shared_tile_layout: the step's sums do not fit over the slices");
    if (stage_inputs) { // the staged inputs' second set, the tile's by its parity
        l.stage_col = l.columns;
        l.columns += in_pad;
    }
    if (stage_targets) {
        l.target_words = source == TargetSource::explicit_samples ? c.output_dims
                         : source == TargetSource::image_rgba16   ? 2u
                                                                  : 1u;
        l.pixels = source != TargetSource::explicit_samples;
    }
    return l;
}

uint32_t shared_tile_bytes(const ModelConfig& c, uint32_t rows, uint32_t subgroups, bool stage_inputs,
                           bool late_encoding, bool stage_targets) {
    uint32_t most = 0;
    for (TargetSource source : {TargetSource::image_rgba8, TargetSource::image_rgba16, TargetSource::explicit_samples})
        most = std::max(
            most, shared_tile_layout(c, rows, subgroups, stage_inputs, late_encoding, stage_targets, source).bytes());
    return most;
}

} // namespace ff::engine::detail
