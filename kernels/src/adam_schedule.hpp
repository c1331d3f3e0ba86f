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
//   -a(t) r^j (m / sqrt(v)) / (1 + d(t)),   d(t) = eps sqrt(1 - beta2^t) / (sqrt(v) beta2^(j/2)),
// with j = t - f, m, v the moments after step f, r = beta1 / sqrt(beta2) and a(t) = lr_grid(t)
// sqrt(1 - beta2^t) / (1 - beta1^t). To first order in d, 1 / (1 + d) = 1 - d, and the steps
// f + 1 .. g move it by -(m / sqrt(v)) (A - (eps / sqrt(v)) E) with
//   A = R(f) - r^(g - f) R(g),  R(f) = sum over t > f of a(t) r^(t - f),
//   E = S(f) - q^(g - f) S(g),  S(f) = sum over t > f of e(t) q^(t - f),
// q = beta1 / beta2 and e(t) = lr_grid(t) (1 - beta2^t) / (1 - beta1^t): two lookups each,
// whatever the gap (the error, of order d^2, is what the shader bounds). The table holds R(f),
// S(f) in pairs, f = 0 .. size - 1. Past its end the schedule is constant (the rate holds after
// o.steps, the bias corrections are 1 in float), so a lookup clamps to the last pair. Empty when
// catch_up_limit() is 0, beta1 >= beta2, or the table would exceed `max_entries` floats.
std::vector<float> catch_up_sums(const TrainOptions& o, uint64_t max_entries);
// The floats catch_up_sums() holds when it is not empty (two a pair).
uint64_t catch_up_table_floats(const TrainOptions& o);

} // namespace ff::engine::detail
