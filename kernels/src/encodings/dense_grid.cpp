// The dense feature grid: grid_width x grid_height cells of grid_channels learnable floats, sampled
// bilinearly at cell centres, then the positional terms (sub-cell bumps, global Fourier octaves).
// Shader: kernels/shaders/encoding_dense_grid.glsl.
#include "encoding.hpp"
#include "grid_keys.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine::detail {
namespace {

uint32_t input_width(const ModelConfig& c) {
    return c.grid_channels + (c.encoding.subcell ? 2u : 0u) + 4u * c.encoding.fourier_octaves;
}
uint32_t gradient_inputs(const ModelConfig& c) { return c.grid_channels; }
uint64_t cells(const ModelConfig& c) { return uint64_t(c.grid_width) * c.grid_height; }
uint32_t cell_features(const ModelConfig& c) { return c.grid_channels; }
uint32_t cells_read(const ModelConfig&) { return 4; } // bilinear: the 4 nearest cells
uint32_t cells_across(const ModelConfig& c) { return c.grid_width; }

void validate(const ModelConfig& c, std::ostringstream& e) {
    if (c.grid_width < 2 || c.grid_height < 2)
        e << "grid size " << c.grid_width << "x" << c.grid_height << " must be at least 2x2; ";
    if (uint64_t(c.grid_width) * c.grid_height > (1u << 26))
        e << "grid size " << c.grid_width << "x" << c.grid_height << " is too large; ";
    if (c.grid_channels < 1 || c.grid_channels > 16)
        e << "grid_channels " << c.grid_channels << " must be 1..16; ";
    if (c.encoding.fourier_octaves > 8)
        e << "fourier_octaves " << c.encoding.fourier_octaves << " must be 0..8; ";
}

// Small zero-mean noise: breaks the symmetry between channels while the positional terms carry
// the position signal at the start.
void initialise(const ModelConfig&, UniformSource& rng, std::vector<float>& params) {
    for (float& p : params) p = rng.uniform(-1e-2f, 1e-2f);
}

void defines(const ModelConfig& c, Defines& d) {
    d.push_back({"GRID_C", std::to_string(c.grid_channels)});
    d.push_back({"ENC_SUBCELL", c.encoding.subcell ? "1" : "0"});
    d.push_back({"ENC_OCTAVES", std::to_string(c.encoding.fourier_octaves)});
}

struct Tap {
    uint64_t cell[4];
    double w[4];
    double fx, fy;
};

// Mirrors grid_tap() in encoding_dense_grid.glsl.
Tap tap(const ModelConfig& c, double u, double v) {
    double px = u * c.grid_width - 0.5, py = v * c.grid_height - 0.5;
    double flx = std::floor(px), fly = std::floor(py);
    Tap t;
    t.fx = px - flx;
    t.fy = py - fly;
    auto cx = [&](double x) { return uint64_t(std::clamp(int64_t(x), int64_t(0), int64_t(c.grid_width) - 1)); };
    auto cy = [&](double y) { return uint64_t(std::clamp(int64_t(y), int64_t(0), int64_t(c.grid_height) - 1)); };
    uint64_t x0 = cx(flx), x1 = cx(flx + 1), y0 = cy(fly), y1 = cy(fly + 1), gw = c.grid_width;
    t.cell[0] = y0 * gw + x0;
    t.cell[1] = y0 * gw + x1;
    t.cell[2] = y1 * gw + x0;
    t.cell[3] = y1 * gw + x1;
    t.w[0] = (1 - t.fx) * (1 - t.fy);
    t.w[1] = t.fx * (1 - t.fy);
    t.w[2] = (1 - t.fx) * t.fy;
    t.w[3] = t.fx * t.fy;
    return t;
}

void reference_encode(const ModelConfig& c, const std::vector<double>& params, double u, double v,
                      std::vector<double>& x) {
    Tap t = tap(c, u, v);
    x.clear();
    for (uint32_t ch = 0; ch < c.grid_channels; ++ch) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += t.w[k] * params[t.cell[k] * c.grid_channels + ch];
        x.push_back(s);
    }
    if (c.encoding.subcell) {
        x.push_back(std::sin(M_PI * t.fx));
        x.push_back(std::sin(M_PI * t.fy));
    }
    for (uint32_t o = 0; o < c.encoding.fourier_octaves; ++o) {
        double w = 2 * M_PI * double(1u << o);
        x.push_back(std::sin(w * u));
        x.push_back(std::cos(w * u));
        x.push_back(std::sin(w * v));
        x.push_back(std::cos(w * v));
    }
}

void reference_backward(const ModelConfig& c, double u, double v, const std::vector<double>& dx,
                        std::vector<double>& dparams) {
    Tap t = tap(c, u, v);
    for (int k = 0; k < 4; ++k)
        for (uint32_t ch = 0; ch < c.grid_channels; ++ch)
            dparams[t.cell[k] * c.grid_channels + ch] += t.w[k] * dx[ch];
}

uint64_t group_cells(const ModelConfig& c, uint64_t) { return cells(c); } // one group

std::string describe(const ModelConfig& c) {
    return std::to_string(c.grid_width) + "x" + std::to_string(c.grid_height) + "x" +
           std::to_string(c.grid_channels) + " grid";
}

} // namespace

extern const EncodingDescriptor kDenseGridEncoding = {
    EncodingKind::dense_grid, "dense_grid", "ENCODING_DENSE_GRID", "feature grid",
    input_width, gradient_inputs, cells, cell_features, cells_read, validate, initialise, defines,
    describe, write_grid_keys, read_grid_keys, reference_encode, reference_backward, group_cells,
    kLazyDenseAdamRatio, nullptr, /*parameters_in_records=*/true, /*visits_read_beside_claim=*/true,
    /*lazy_adam_ratio_on_cpu=*/kLazyDenseAdamRatioOnCpu, cells_across,
};

} // namespace ff::engine::detail
