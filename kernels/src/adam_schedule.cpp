#include "adam_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine::detail {

double learning_rate_scale(const TrainOptions& o, uint32_t step) {
    const double total = o.steps > 0 ? o.steps : 1;
    const double warmup = o.lr_warmup * total;
    const double ramp = step + 1 < warmup ? (step + 1) / warmup : 1.0;
    const double start = o.lr_decay_start * total;
    if (step <= start) return ramp;
    const double t = std::min(1.0, (step - start) / std::max(1.0, total - start));
    return ramp * std::pow(double(o.lr_final_scale), t);
}

uint32_t catch_up_limit(float beta1, float beta2) {
    const double r = double(beta1) / std::sqrt(double(beta2));
    if (r <= 0) return 1;
    if (r >= 1) return 0;
    const double n = std::ceil(std::log(1e-7 * (1 - r)) / std::log(r));
    return n > 4096 ? 0 : std::max<uint32_t>(1, uint32_t(n));
}

// Entries up to well past the schedule's end, where the terms' factors have become constant: the
// bias corrections 1 - beta^t reach 1 in float within ~4,000 steps for any beta the limit admits.
uint64_t catch_up_table_floats(const TrainOptions& o) { return 2 * (uint64_t(o.steps) + 4097); }

std::vector<float> catch_up_sums(const TrainOptions& o, uint64_t max_entries) {
    if (catch_up_limit(o.beta1, o.beta2) == 0 || !(o.beta1 < o.beta2)) return {};
    const uint64_t size = catch_up_table_floats(o) / 2;
    if (2 * size > max_entries) return {};
    const double b1 = o.beta1, b2 = o.beta2;
    const double r = b1 / std::sqrt(b2), q = b1 / b2;
    // Per Adam step t (1-based): the rate, and the bias corrections 1 - beta^t.
    auto lr = [&](uint64_t t) {
        return double(o.lr_grid) * learning_rate_scale(o, uint32_t(std::min<uint64_t>(t - 1, UINT32_MAX)));
    };
    auto bc = [](double beta, uint64_t t) { return 1 - std::pow(beta, double(t)); };
    auto a = [&](uint64_t t) { return lr(t) * std::sqrt(bc(b2, t)) / bc(b1, t); };
    auto e = [&](uint64_t t) { return lr(t) * bc(b2, t) / bc(b1, t); };
    // The last entry: its series until the terms vanish in double.
    double tail_a = 0, tail_e = 0, rk = r, qk = q;
    for (uint64_t t = size; rk > 1e-20 || qk > 1e-20; ++t, rk *= r, qk *= q) {
        tail_a += a(t) * rk;
        tail_e += e(t) * qk;
    }
    std::vector<float> sums(2 * size);
    double next_a = tail_a, next_e = tail_e; // R(f + 1), E(f + 1)
    sums[2 * (size - 1)] = float(tail_a);
    sums[2 * (size - 1) + 1] = float(tail_e);
    for (uint64_t f = size - 1; f-- > 0;) {
        next_a = r * (a(f + 1) + next_a);
        next_e = q * (e(f + 1) + next_e);
        sums[2 * f] = float(next_a);
        sums[2 * f + 1] = float(next_e);
    }
    return sums;
}

} // namespace ff::engine::detail
