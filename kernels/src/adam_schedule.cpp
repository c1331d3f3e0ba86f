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

std::vector<float> catch_up_sums(const TrainOptions& o, uint64_t max_entries) {
    if (catch_up_limit(o.beta1, o.beta2) == 0) return {};
    // Entries up to well past the schedule's end, where a(t) has become constant: the bias
    // corrections 1 - beta^t reach 1 in float within ~4,000 steps for any beta the limit admits.
    const uint64_t size = uint64_t(o.steps) + 4097;
    if (size > max_entries) return {};
    const double r = double(o.beta1) / std::sqrt(double(o.beta2));
    auto a = [&](uint64_t t) { // Adam step t (1-based)
        const double lr = double(o.lr_grid) * learning_rate_scale(o, uint32_t(std::min<uint64_t>(t - 1, UINT32_MAX)));
        return lr * std::sqrt(1 - std::pow(double(o.beta2), double(t))) / (1 - std::pow(double(o.beta1), double(t)));
    };
    // The last entry: its series until the terms vanish in double.
    double tail = 0, rk = r;
    for (uint64_t t = size; rk > 1e-20; ++t, rk *= r) tail += a(t) * rk;
    std::vector<float> sums(size);
    double next = tail; // R(f + 1)
    sums[size - 1] = float(tail);
    for (uint64_t f = size - 1; f-- > 0;) {
        next = r * (a(f + 1) + next);
        sums[f] = float(next);
    }
    return sums;
}

} // namespace ff::engine::detail
