// The CPU reference itself, checked against central finite differences of its own loss.
#include "cpu_reference.hpp"
#include "encodings/encoding.hpp"
#include "field/model_layout.hpp"
#include "test_support.hpp"

#include <cmath>

namespace ff::engine {
namespace {

void check_against_finite_differences(const ModelConfig& config) {
    Model model = test::random_model(config, 3);
    test::Samples s = test::random_samples(40, config.output_dims, 5);
    std::vector<double> uv(s.uv.begin(), s.uv.end()), tg(s.targets.begin(), s.targets.end());
    reference::Gradients g = reference::forward_backward(model, uv, tg);
    std::vector<double> mlp(model.mlp.begin(), model.mlp.end());
    std::vector<double> grid(model.encoding_params.begin(), model.encoding_params.end());
    EXPECT_NEAR(g.loss, reference::loss(config, mlp, grid, uv, tg), 1e-12);

    const double h = 1e-6;
    auto fd = [&](std::vector<double>& params, size_t i) {
        double keep = params[i];
        params[i] = keep + h;
        double up = reference::loss(config, mlp, grid, uv, tg);
        params[i] = keep - h;
        double down = reference::loss(config, mlp, grid, uv, tg);
        params[i] = keep;
        return (up - down) / (2 * h);
    };
    double max_mlp = 0, max_grid = 0;
    for (double v : g.grad_mlp) max_mlp = std::max(max_mlp, std::abs(v));
    for (double v : g.grad_encoding) max_grid = std::max(max_grid, std::abs(v));
    ASSERT_GT(max_mlp, 0);
    if (!grid.empty()) { // a parameterless encoding (coords, frequency) has no grid gradients
        ASSERT_GT(max_grid, 0);
    }
    // Every MLP parameter (padding included: its gradient must be exactly zero).
    int checked = 0;
    for (size_t i = 0; i < mlp.size(); ++i) {
        double numeric = fd(mlp, i);
        EXPECT_NEAR(g.grad_mlp[i], numeric, 1e-6 * max_mlp + 1e-9) << "mlp parameter " << i;
        ++checked;
    }
    // Every grid value.
    for (size_t i = 0; i < grid.size(); ++i) {
        double numeric = fd(grid, i);
        EXPECT_NEAR(g.grad_encoding[i], numeric, 1e-6 * max_grid + 1e-9) << "grid value " << i;
        ++checked;
    }
    EXPECT_GT(checked, grid.empty() ? 500 : 1000);
}

TEST(CpuReference, MatchesFiniteDifferencesDefaultConfig) {
    check_against_finite_differences(test::default_config(7, 5));
}

TEST(CpuReference, MatchesFiniteDifferencesAlternateConfig) {
    check_against_finite_differences(test::alternate_config());
}

TEST(CpuReference, MatchesFiniteDifferencesHashGrid) {
    check_against_finite_differences(test::hash_test_config());
}

TEST(CpuReference, MatchesFiniteDifferencesSiren) {
    check_against_finite_differences(test::siren_test_config());
}

// The MLP's gradients through the frequency encoding's 18 fixed inputs (it has no parameters).
TEST(CpuReference, MatchesFiniteDifferencesFrequency) {
    check_against_finite_differences(test::frequency_test_config());
}

// The frequency encoding's inputs, written out for one position: the formula, not the code's
// loop, so a wrong octave, order or factor of 2 fails here before any GPU sees it.
TEST(CpuReference, FrequencyEncodingIsCoordinatesThenOctaves) {
    ModelConfig c = test::frequency_test_config();
    c.encoding.frequency.octaves = 3;
    const double u = 0.3, v = 0.85, pi = 3.14159265358979323846;
    const std::vector<double> expected = {
        -0.4, 0.7,
        std::sin(pi * u), std::cos(pi * u), std::sin(pi * v), std::cos(pi * v),
        std::sin(2 * pi * u), std::cos(2 * pi * u), std::sin(2 * pi * v), std::cos(2 * pi * v),
        std::sin(4 * pi * u), std::cos(4 * pi * u), std::sin(4 * pi * v), std::cos(4 * pi * v)};
    std::vector<double> x;
    detail::encoding_of(c).reference_encode(c, {}, u, v, x);
    ASSERT_EQ(x.size(), expected.size());
    EXPECT_EQ(c.input_width(), 14u);
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], expected[i], 1e-15) << "input " << i;
    EXPECT_EQ(c.encoding_parameter_count(), 0u);
    EXPECT_EQ(c.validate(), "");
    c.encoding.frequency.octaves = 15; // 62 inputs: past the cap
    EXPECT_NE(c.validate().find("frequency octaves 15 must be 1..14"), std::string::npos) << c.validate();
    c.encoding.frequency.octaves = 3;
    c.grid_width = c.grid_height = 4;
    EXPECT_NE(c.validate().find("must be 0x0 with the frequency encoding"), std::string::npos) << c.validate();
}

TEST(CpuReference, SirenFirstLayerIsSineOfOmegaTimesAffine) {
    // One hidden layer, identity-free check of the forward formula against a hand computation.
    ModelConfig c = siren_config(16, 1, 30.0f);
    Model m = initial_model(c, 4);
    double u = 0.3, v = 0.8, x0 = 2 * u - 1, x1 = 2 * v - 1;
    // Output 0 = b2[0] + sum_j W2[0][j] * sin(30 (W1[j] . x + b1[j])).
    const uint32_t in_pad = c.padded_input_width(), out_pad = c.padded_output_width();
    const size_t w2 = size_t(16) * in_pad + 16;
    double expected = m.mlp[w2 + size_t(out_pad) * 16];
    for (uint32_t j = 0; j < 16; ++j) {
        double z = m.mlp[j * in_pad] * x0 + m.mlp[j * in_pad + 1] * x1 + m.mlp[size_t(16) * in_pad + j];
        expected += m.mlp[w2 + j] * std::sin(30.0 * z);
    }
    EXPECT_NEAR(reference::forward(m, u, v)[0], expected, 1e-12);
}

TEST(CpuReference, SirenInitialisationFollowsThePaper) {
    ModelConfig c = siren_config(64, 3, 30.0f);
    Model m = initial_model(c, 1);
    EXPECT_TRUE(m.encoding_params.empty());
    EXPECT_EQ(c.input_width(), 2u);
    // Matrix 0: U(-1/2, 1/2) (fan-in 2); matrix 1: U(-sqrt(6/64)/30, +).
    double max0 = 0, max1 = 0;
    for (uint32_t o = 0; o < 64; ++o) {
        for (uint32_t i = 0; i < 2; ++i) max0 = std::max(max0, double(std::abs(m.mlp[o * 16 + i])));
    }
    const size_t w1 = size_t(64) * 16 + 64;
    for (size_t i = 0; i < 64 * 64; ++i) max1 = std::max(max1, double(std::abs(m.mlp[w1 + i])));
    EXPECT_LE(max0, 0.5);
    EXPECT_GT(max0, 0.4); // 128 draws span the range
    EXPECT_LE(max1, std::sqrt(6.0 / 64) / 30 + 1e-7);
    EXPECT_GT(max1, 0.9 * std::sqrt(6.0 / 64) / 30);
    // No grid parameters: the MLP is the whole model.
    EXPECT_EQ(m.parameter_count(), (64u * 2 + 64) + 2 * (64u * 64 + 64) + (3u * 64 + 3));
}

TEST(CpuReference, HiddenBiasesStartAtTheChosenValue) {
    // The hidden ReLU layers' biases start at hidden_bias (0.1 by default), the output's at zero;
    // the bias takes no draws, so the weights and the encoding are the same whatever it is.
    ModelConfig c = test::default_config();
    const detail::MlpLayout L = detail::mlp_layout(c);
    const Model standard = initial_model(c, 3), zero = initial_model(c, 3, 0.0f), other = initial_model(c, 3, -0.25f);
    for (uint32_t l = 0; l < L.matrices; ++l) {
        const bool last = l + 1 == L.matrices;
        for (uint32_t o = 0; o < L.out_logical[l]; ++o) {
            const size_t b = L.bias_offset[l] + o;
            EXPECT_EQ(standard.mlp[b], last ? 0.0f : kDefaultHiddenBias) << "matrix " << l << " output " << o;
            EXPECT_EQ(zero.mlp[b], 0.0f) << "matrix " << l << " output " << o;
            EXPECT_EQ(other.mlp[b], last ? 0.0f : -0.25f) << "matrix " << l << " output " << o;
        }
        for (uint32_t o = 0; o < L.out_logical[l]; ++o)
            for (uint32_t i = 0; i < L.in_logical[l]; ++i) {
                const size_t w = L.weight_offset[l] + size_t(o) * L.in_padded[l] + i;
                ASSERT_EQ(standard.mlp[w], zero.mlp[w]);
                ASSERT_EQ(standard.mlp[w], other.mlp[w]);
            }
    }
    EXPECT_EQ(standard.encoding_params, zero.encoding_params);
    // A sine MLP keeps the SIREN initialisation's own biases.
    const ModelConfig s = siren_config(16, 2, 30.0f);
    EXPECT_EQ(initial_model(s, 3).mlp, initial_model(s, 3, 0.0f).mlp);
}

TEST(CpuReference, InputWidthOfDefaultIs13) {
    ModelConfig c = test::default_config();
    EXPECT_EQ(c.input_width(), 13u);
    EXPECT_EQ(c.padded_input_width(), 16u);
    Model m = initial_model(c, 1);
    EXPECT_EQ(m.mlp.size(), 16u * 32 + 32 + 32 * 32 + 32 + 16 * 32 + 16);
    EXPECT_EQ(m.parameter_count(), 23u * 17 * 3 + 13 * 32 + 32 + 32 * 32 + 32 + 32 * 3 + 3);
}

} // namespace
} // namespace ff::engine
