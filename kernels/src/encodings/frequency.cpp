// The frequency (positional) encoding of NeRF (Mildenhall et al. 2020): no parameters, the MLP
// learns the image from fixed sinusoids of the position. Inputs: (2u - 1, 2v - 1), then per octave
// k = 0 .. octaves - 1: sin(2^k pi u), cos(2^k pi u), sin(2^k pi v), cos(2^k pi v).
// The coordinates themselves come first, as in NeRF's code: a ReLU MLP makes the image's smooth
// gradients from them directly, where from the sinusoids alone it must bend a lowest octave into
// a ramp. Shader: kernels/shaders/encoding_frequency.glsl.
#include "encoding.hpp"
#include "parameterless.hpp"

#include <cmath>

namespace ff::engine::detail {
namespace {

constexpr uint32_t kMaxOctaves = 14; // 58 inputs: the MLP's first matrix stays small

uint32_t input_width(const ModelConfig& c) { return 2 + 4 * c.encoding.frequency.octaves; }

void validate(const ModelConfig& c, std::ostringstream& e) {
    parameterless::validate_no_grid(c, "frequency", e);
    const uint32_t octaves = c.encoding.frequency.octaves;
    if (octaves < 1 || octaves > kMaxOctaves)
        e << "frequency octaves " << octaves << " must be 1.." << kMaxOctaves << "; ";
}

// The shader takes its octaves from IN_DIM (input_width): nothing more to define.
void defines(const ModelConfig&, Defines&) {}

std::string describe(const ModelConfig& c) {
    return "frequency encoding, " + std::to_string(c.encoding.frequency.octaves) + " octaves";
}

void write_header(const ModelConfig& c, HeaderWriter& out) {
    out.u32("frequency_octaves", c.encoding.frequency.octaves);
}

void read_header(HeaderReader& in, uint32_t, ModelConfig& c) {
    c.grid_width = c.grid_height = 0;
    c.encoding.frequency.octaves = in.u32("frequency_octaves");
}

void reference_encode(const ModelConfig& c, const std::vector<double>&, double u, double v,
                      std::vector<double>& x) {
    x = {2 * u - 1, 2 * v - 1};
    for (uint32_t k = 0; k < c.encoding.frequency.octaves; ++k) {
        const double w = std::ldexp(M_PI, int(k));
        x.push_back(std::sin(w * u));
        x.push_back(std::cos(w * u));
        x.push_back(std::sin(w * v));
        x.push_back(std::cos(w * v));
    }
}

} // namespace

extern const EncodingDescriptor kFrequencyEncoding = {
    EncodingKind::frequency, "frequency", "ENCODING_FREQUENCY", "encoding parameters",
    input_width, parameterless::gradient_inputs, parameterless::cells, parameterless::cell_features,
    parameterless::cells_read, validate, parameterless::initialise, defines, describe,
    write_header, read_header, reference_encode, parameterless::reference_backward,
    parameterless::group_cells,
    0.0, // no cells: nothing to step
    nullptr, /*parameters_in_records=*/false, /*visits_read_beside_claim=*/false,
    /*lazy_adam_ratio_on_cpu=*/0, /*cells_across=*/nullptr, /*format_minor=*/4,
};

} // namespace ff::engine::detail
