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

// Entries up to past the schedule's end where the terms' factors have become constant: the rate
// holds after o.steps, and the bias corrections 1 - beta^t are 1 in float once beta^t < 2^-25
// (1,725 steps for beta2 = 0.99).
uint64_t catch_up_table_floats(const TrainOptions& o) {
    auto settled = [](double beta) { return beta > 0 ? std::ceil(-25 * std::log(2.0) / std::log(beta)) : 0.0; };
    const uint64_t tail = uint64_t(std::max(settled(o.beta1), settled(o.beta2))) + 1;
    return kCatchUpStride * (uint64_t(o.steps) + tail);
}

std::vector<float> catch_up_sums(const TrainOptions& o, uint64_t max_entries) {
    const double b1 = o.beta1, b2 = o.beta2;
    // Term n's ratio q_n = beta1 / beta2^((n + 1) / 2): every series must converge.
    double ratio[kCatchUpTerms];
    for (uint32_t n = 0; n < kCatchUpTerms; ++n) ratio[n] = b1 / std::pow(b2, 0.5 * (n + 1));
    if (catch_up_limit(o.beta1, o.beta2) == 0 || !(ratio[kCatchUpTerms - 1] < 1)) return {};
    const uint64_t size = catch_up_table_floats(o) / kCatchUpStride;
    if (kCatchUpStride * size > max_entries) return {};
    // Per Adam step t (1-based): term n's factor c_n(t) = lr(t) (1 - beta2^t)^((n + 1) / 2) / (1 - beta1^t).
    auto lr = [&](uint64_t t) {
        return double(o.lr_grid) * learning_rate_scale(o, uint32_t(std::min<uint64_t>(t - 1, UINT32_MAX)));
    };
    auto bc = [](double beta, uint64_t t) { return 1 - std::pow(beta, double(t)); };
    auto factor = [&](uint32_t n, uint64_t t) { return lr(t) * std::pow(bc(b2, t), 0.5 * (n + 1)) / bc(b1, t); };
    std::vector<float> sums(kCatchUpStride * size); // the stride's last float stays zero
    for (uint32_t n = 0; n < kCatchUpTerms; ++n) {
        // The last entry: its series until the terms vanish in double; then S(f) = q (c(f + 1) + S(f + 1)).
        double next = 0, qk = ratio[n];
        for (uint64_t t = size; qk > 1e-20; ++t, qk *= ratio[n]) next += factor(n, t) * qk;
        sums[kCatchUpStride * (size - 1) + n] = float(next);
        for (uint64_t f = size - 1; f-- > 0;) {
            next = ratio[n] * (factor(n, f + 1) + next);
            sums[kCatchUpStride * f + n] = float(next);
        }
    }
    return sums;
}

} // namespace ff::engine::detail
