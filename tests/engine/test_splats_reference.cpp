// The CPU reference of the splat rasteriser (see test_splats_reference.hpp). Written from the
// maths, independently of the kernels' tiling: pixel centre p = (i + 0.5, j + 0.5),
// z1 = (p.x - x) / l11, z2 = (p.y - y - l21 z1) / l22, q = z1^2 + z2^2, weight exp(-q/2) for q <= 9.
#include "test_splats_reference.hpp"

#include <cmath>

namespace ff::engine::test {

SplatReference splat_reference(const std::vector<double>& params, uint32_t width, uint32_t height,
                               const std::vector<double>& target) {
    const size_t n = params.size() / 8, pixels = size_t(width) * height;
    SplatReference r;
    r.rgb.assign(pixels * 3, 0.0);
    r.grads.assign(params.size(), 0.0);
    auto weight = [&](size_t i, double px, double py, double& z1, double& z2) {
        const double* s = &params[i * 8];
        z1 = (px - s[0]) / s[2];
        z2 = (py - s[1] - s[3] * z1) / s[4];
        double q = z1 * z1 + z2 * z2;
        return q <= 9.0 ? std::exp(-0.5 * q) : 0.0;
    };
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            double* out = &r.rgb[(size_t(y) * width + x) * 3];
            for (size_t i = 0; i < n; ++i) {
                double z1, z2, a = weight(i, x + 0.5, y + 0.5, z1, z2);
                for (int c = 0; c < 3; ++c) out[c] += a * params[i * 8 + 5 + c];
            }
        }
    const double scale = 1.0 / (3.0 * double(pixels));
    for (size_t k = 0; k < pixels * 3; ++k) {
        double d = r.rgb[k] - target[k];
        r.loss += d * d * scale;
    }
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x) {
            size_t p = size_t(y) * width + x;
            double res[3];
            for (int c = 0; c < 3; ++c) res[c] = 2.0 * scale * (r.rgb[p * 3 + c] - target[p * 3 + c]);
            for (size_t i = 0; i < n; ++i) {
                const double* s = &params[i * 8];
                double z1, z2, a = weight(i, x + 0.5, y + 0.5, z1, z2);
                if (a == 0.0) continue;
                double* g = &r.grads[i * 8];
                double dot = 0;
                for (int c = 0; c < 3; ++c) {
                    g[5 + c] += a * res[c];
                    dot += res[c] * s[5 + c];
                }
                // Chain rule through q = z1^2 + z2^2, z2 depending on z1 as well.
                double gq = -0.5 * a * dot;
                double gz2 = 2.0 * z2 * gq;
                double gz1 = 2.0 * z1 * gq - gz2 * s[3] / s[4];
                g[0] += -gz1 / s[2];
                g[1] += -gz2 / s[4];
                g[2] += -gz1 * z1 / s[2];
                g[3] += -gz2 * z1 / s[4];
                g[4] += -gz2 * z2 / s[4];
            }
        }
    return r;
}

} // namespace ff::engine::test
