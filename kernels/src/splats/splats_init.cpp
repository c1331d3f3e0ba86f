// Splat configuration checks and the initialisation from the image.
#include "fieldflow/engine/splats.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace ff::engine {

namespace {
constexpr uint32_t kMaxSplats = 1u << 24; // 16M splats: 512 MiB of parameters + Adam state
// Splats cover each point about this many times over at the start (colours divided by it): with
// randomly placed centres, 1 leaves gaps and hot spots (leuvenA, 10k splats: 11.6 dB at the start),
// more blurs; 2 measured as good as 1 after 300 steps and starts 5 dB higher.
constexpr float kOverlap = 2.0f;
}

std::string SplatConfig::validate() const {
    if (count == 0) return "count must be at least 1";
    if (count > kMaxSplats)
        return "count " + std::to_string(count) + " exceeds the maximum of " + std::to_string(kMaxSplats);
    return {};
}

std::string SplatTrainOptions::validate() const {
    if (!(lr_position >= 0) || !(lr_cholesky >= 0) || !(lr_color >= 0) ||
        !std::isfinite(lr_position) || !std::isfinite(lr_cholesky) || !std::isfinite(lr_color))
        return "learning rates must be finite and non-negative";
    return {};
}

SplatModel initial_splats(const SplatConfig& config, const ImageData& image, uint64_t seed) {
    if (std::string problem = config.validate(); !problem.empty())
        throw EngineError("invalid splat configuration: " + problem);
    const uint32_t W = image.width, H = image.height;
    const size_t pixels = size_t(W) * H;
    if (pixels == 0 || image.rgb.size() != pixels * 3)
        throw EngineError("splat initialisation needs a non-empty RGB image (" + std::to_string(W) +
                          "x" + std::to_string(H) + ", " + std::to_string(image.rgb.size()) + " floats)");
    auto at = [&](uint32_t x, uint32_t y, int c) {
        float v = image.rgb[(size_t(y) * W + x) * 3 + c];
        return std::isfinite(v) ? std::clamp(v, 0.0f, 1.0f) : 0.0f;
    };
    auto luma = [&](uint32_t x, uint32_t y) { return (at(x, y, 0) + at(x, y, 1) + at(x, y, 2)) / 3.0; };

    // Sampling weights: half uniform, half the gradient magnitude (edges and texture get more).
    std::vector<double> weight(pixels);
    double gradient_sum = 0;
    for (uint32_t y = 0; y < H; ++y)
        for (uint32_t x = 0; x < W; ++x) {
            double gx = luma(std::min(x + 1, W - 1), y) - luma(x > 0 ? x - 1 : 0, y);
            double gy = luma(x, std::min(y + 1, H - 1)) - luma(x, y > 0 ? y - 1 : 0);
            weight[size_t(y) * W + x] = std::sqrt(gx * gx + gy * gy);
            gradient_sum += weight[size_t(y) * W + x];
        }
    for (double& w : weight)
        w = gradient_sum > 0 ? 0.5 / double(pixels) + 0.5 * w / gradient_sum : 1.0 / double(pixels);

    // Local splat density: the weights box-blurred over about one mean splat spacing (summed-area
    // table), times the count. A round Gaussian of sigma^2 = kOverlap / (2 pi density) then overlaps
    // its neighbours about kOverlap times; dividing colours by it keeps the image's brightness.
    std::vector<double> sat((size_t(W) + 1) * (H + 1), 0.0);
    for (uint32_t y = 0; y < H; ++y)
        for (uint32_t x = 0; x < W; ++x)
            sat[size_t(y + 1) * (W + 1) + x + 1] = weight[size_t(y) * W + x] + sat[size_t(y) * (W + 1) + x + 1] +
                                                   sat[size_t(y + 1) * (W + 1) + x] - sat[size_t(y) * (W + 1) + x];
    const int radius = std::max(1, int(std::ceil(std::sqrt(double(pixels) / config.count))));
    auto density = [&](uint32_t x, uint32_t y) {
        int x0 = std::max(0, int(x) - radius), x1 = std::min(int(W), int(x) + radius + 1);
        int y0 = std::max(0, int(y) - radius), y1 = std::min(int(H), int(y) + radius + 1);
        double s = sat[size_t(y1) * (W + 1) + x1] - sat[size_t(y0) * (W + 1) + x1] -
                   sat[size_t(y1) * (W + 1) + x0] + sat[size_t(y0) * (W + 1) + x0];
        return config.count * s / double((x1 - x0) * (y1 - y0));
    };

    std::vector<double> cdf(pixels);
    double run = 0;
    for (size_t i = 0; i < pixels; ++i) cdf[i] = run += weight[i];
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    const double max_sigma = std::max(W, H) / 4.0;

    SplatModel m;
    m.config = config;
    m.width = W;
    m.height = H;
    m.params.reserve(m.parameter_count());
    for (uint32_t i = 0; i < config.count; ++i) {
        size_t p = std::lower_bound(cdf.begin(), cdf.end(), u01(rng) * run) - cdf.begin();
        p = std::min(p, pixels - 1);
        uint32_t px = uint32_t(p % W), py = uint32_t(p / W);
        double sigma = std::sqrt(kOverlap / (2.0 * std::numbers::pi * density(px, py)));
        sigma = std::clamp(sigma, 0.5, max_sigma);
        float x = float(px + u01(rng)), y = float(py + u01(rng));
        m.params.insert(m.params.end(), {x, y, float(sigma), 0.0f, float(sigma), at(px, py, 0) / kOverlap,
                                         at(px, py, 1) / kOverlap, at(px, py, 2) / kOverlap});
    }
    return m;
}

} // namespace ff::engine
