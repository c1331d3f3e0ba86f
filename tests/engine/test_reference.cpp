// The CPU reference itself, checked against central finite differences of its own loss.
#include "cpu_reference.hpp"
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
    std::vector<double> grid(model.grid.begin(), model.grid.end());
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
    for (double v : g.grad_grid) max_grid = std::max(max_grid, std::abs(v));
    ASSERT_GT(max_mlp, 0);
    ASSERT_GT(max_grid, 0);
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
        EXPECT_NEAR(g.grad_grid[i], numeric, 1e-6 * max_grid + 1e-9) << "grid value " << i;
        ++checked;
    }
    EXPECT_GT(checked, 1000);
}

TEST(CpuReference, MatchesFiniteDifferencesDefaultConfig) {
    check_against_finite_differences(test::default_config(7, 5));
}

TEST(CpuReference, MatchesFiniteDifferencesAlternateConfig) {
    check_against_finite_differences(test::alternate_config());
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
