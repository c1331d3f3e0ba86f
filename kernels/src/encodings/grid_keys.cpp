#include "grid_keys.hpp"

namespace ff::engine::detail {

void write_grid_keys(const ModelConfig& c, HeaderWriter& out) {
    out.u32("grid_width", c.grid_width);
    out.u32("grid_height", c.grid_height);
    out.u32("grid_channels", c.grid_channels);
    out.boolean("subcell", c.encoding.subcell);
    out.u32("fourier_octaves", c.encoding.fourier_octaves);
}

void read_grid_keys(HeaderReader& in, uint32_t, ModelConfig& c) {
    c.grid_width = in.u32("grid_width");
    c.grid_height = in.u32("grid_height");
    c.grid_channels = in.u32("grid_channels");
    c.encoding.subcell = in.boolean("subcell");
    c.encoding.fourier_octaves = in.u32("fourier_octaves");
}

} // namespace ff::engine::detail
