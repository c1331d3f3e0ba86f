// The model-file keys that the dense grid and the coords encoding have always written (format 1.0
// onwards): grid_width, grid_height, grid_channels, subcell, fourier_octaves. Shared so that coords
// files keep their layout (a 0x0 grid) and old files of both still read.
#pragma once

#include "encoding.hpp"

namespace ff::engine::detail {

void write_grid_keys(const ModelConfig& c, HeaderWriter& out);
void read_grid_keys(HeaderReader& in, uint32_t format_minor, ModelConfig& c);

} // namespace ff::engine::detail
