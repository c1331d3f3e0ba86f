// The encoding's Adam schedule on the host: the learning-rate scale of each step, and the table
// from which lazy dense Adam takes a cell's skipped zero-gradient steps in closed form
// (kernels/shaders/encoding_adam.glsl).
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <cstdint>
#include <vector>

namespace ff::engine::detail {

// The factor on both learning rates at 0-based step `step`: warm-up ramp, hold, exponential decay
// to lr_final_scale at o.steps (and constant after).
double learning_rate_scale(const TrainOptions& o, uint32_t step);

// Zero-gradient Adam steps past which a skipped step moves a parameter by less than 1e-7 of one
// step, all later ones together included: the k-th moves it by at most lr * r^k * |m / sqrt(v)|
// with r = beta1 / sqrt(beta2). 0 when r >= 1 or the count would be huge (the lazy form is then
// not used).
uint32_t catch_up_limit(float beta1, float beta2);

// A zero-gradient Adam step t moves a parameter by
//   -a(t) r^j (m / sqrt(v)) / (1 + d(t)),   d(t) = delta sqrt(1 - beta2^t) / beta2^(j/2),
// with j = t - f, m, v the moments after step f, delta = eps / sqrt(v), r = beta1 / sqrt(beta2)
// and a(t) = lr_grid(t) sqrt(1 - beta2^t) / (1 - beta1^t). As a series in d, 1 / (1 + d) =
// 1 - d + d^2 - ..., and the steps f + 1 .. g move it by
//   -(m / sqrt(v)) (T_0 - delta T_1 + delta^2 T_2),
//   T_n = S_n(f) - q_n^(g - f) S_n(g),  S_n(f) = sum over t > f of c_n(t) q_n^(t - f),
// with q_n = beta1 / beta2^((n + 1) / 2) and c_n(t) = lr_grid(t) (1 - beta2^t)^((n + 1) / 2) /
// (1 - beta1^t) (T_0 is the moves without epsilon: q_0 = r, c_0 = a): two lookups of each sum,
// whatever the gap. The error, of order d^3, is what the shader bounds (it takes the series up to
// d = 0.01: 1e-6 of the moves). The table holds S_0(f), S_1(f), S_2(f) and a zero in each entry of
// kCatchUpStride floats (a vec4 for the shader), f = 0 .. size - 1. Past its end the schedule is
// constant (the rate holds after o.steps, the bias corrections are 1 in float), so a lookup clamps
// to the last entry. Empty when catch_up_limit() is 0, a series would not converge (beta1 >=
// beta2^1.5), or the table would exceed `max_entries` floats.
inline constexpr uint32_t kCatchUpTerms = 3;
inline constexpr uint32_t kCatchUpStride = 4;
std::vector<float> catch_up_sums(const TrainOptions& o, uint64_t max_entries);
// The floats catch_up_sums() holds when it is not empty (kCatchUpStride an entry).
uint64_t catch_up_table_floats(const TrainOptions& o);

} // namespace ff::engine::detail
