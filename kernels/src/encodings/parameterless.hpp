// The members every encoding without learnable parameters shares (coords, frequency): no cells,
// no gradient inputs, nothing to initialise or scatter, one nominal fixed-point group, and a grid
// size of 0x0. Its own members are its inputs (width, defines, reference_encode) and options.
// Shader side: kernels/shaders/encoding_parameterless.glsl.
#pragma once

#include "encoding.hpp"

namespace ff::engine::detail::parameterless {

inline uint32_t gradient_inputs(const ModelConfig&) { return 0; }
inline uint64_t cells(const ModelConfig&) { return 0; }
inline uint32_t cell_features(const ModelConfig&) { return 1; }
inline uint32_t cells_read(const ModelConfig&) { return 0; }
inline void initialise(const ModelConfig&, UniformSource&, std::vector<float>&) {}
inline void reference_backward(const ModelConfig&, double, double, const std::vector<double>&,
                               std::vector<double>&) {}
inline uint64_t group_cells(const ModelConfig&, uint64_t) { return 1; } // no cells

// Appends the problem of a grid size other than 0x0 (`encoding`: its name, for the message).
inline void validate_no_grid(const ModelConfig& c, std::string_view encoding, std::ostringstream& e) {
    if (c.grid_width != 0 || c.grid_height != 0)
        e << "grid size " << c.grid_width << "x" << c.grid_height << " must be 0x0 with the " << encoding
          << " encoding (it has no grid); ";
}

} // namespace ff::engine::detail::parameterless
