// The coords encoding: (2u - 1, 2v - 1) alone, no parameters (SIREN: the network is the model).
// Shader: kernels/shaders/encoding_coords.glsl.
#include "encoding.hpp"
#include "grid_keys.hpp"

namespace ff::engine::detail {
namespace {

uint32_t input_width(const ModelConfig&) { return 2; }
uint32_t gradient_inputs(const ModelConfig&) { return 0; }
uint64_t cells(const ModelConfig&) { return 0; }
uint32_t cell_features(const ModelConfig&) { return 1; }
uint32_t cells_read(const ModelConfig&) { return 0; }

void validate(const ModelConfig& c, std::ostringstream& e) {
    if (c.grid_width != 0 || c.grid_height != 0)
        e << "grid size " << c.grid_width << "x" << c.grid_height
          << " must be 0x0 with the coords encoding (it has no grid); ";
}

void initialise(const ModelConfig&, UniformSource&, std::vector<float>&) {}
void defines(const ModelConfig&, Defines&) {}

void reference_encode(const ModelConfig&, const std::vector<double>&, double u, double v,
                      std::vector<double>& x) {
    x = {2 * u - 1, 2 * v - 1};
}
void reference_backward(const ModelConfig&, double, double, const std::vector<double>&,
                        std::vector<double>&) {}

std::string describe(const ModelConfig&) { return "coordinates"; }
uint64_t group_cells(const ModelConfig&, uint64_t) { return 1; } // no cells

} // namespace

extern const EncodingDescriptor kCoordsEncoding = {
    EncodingKind::coords, "coords", "ENCODING_COORDS", "encoding parameters",
    input_width, gradient_inputs, cells, cell_features, cells_read, validate, initialise, defines,
    describe, write_grid_keys, read_grid_keys, reference_encode, reference_backward, group_cells,
    0.0, // no cells: nothing to step
};

} // namespace ff::engine::detail
