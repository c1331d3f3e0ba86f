// The coords encoding: (2u - 1, 2v - 1) alone, no parameters (SIREN: the network is the model).
// Shader: kernels/shaders/encoding_coords.glsl.
#include "encoding.hpp"
#include "grid_keys.hpp"
#include "parameterless.hpp"

namespace ff::engine::detail {
namespace {

uint32_t input_width(const ModelConfig&) { return 2; }

void validate(const ModelConfig& c, std::ostringstream& e) { parameterless::validate_no_grid(c, "coords", e); }

void defines(const ModelConfig&, Defines&) {}

void reference_encode(const ModelConfig&, const std::vector<double>&, double u, double v,
                      std::vector<double>& x) {
    x = {2 * u - 1, 2 * v - 1};
}

std::string describe(const ModelConfig&) { return "coordinates"; }

} // namespace

extern const EncodingDescriptor kCoordsEncoding = {
    EncodingKind::coords, "coords", "ENCODING_COORDS", "encoding parameters",
    input_width, parameterless::gradient_inputs, parameterless::cells, parameterless::cell_features,
    parameterless::cells_read, validate, parameterless::initialise, defines, describe,
    write_grid_keys, read_grid_keys, reference_encode, parameterless::reference_backward,
    parameterless::group_cells,
    0.0, // no cells: nothing to step
};

} // namespace ff::engine::detail
