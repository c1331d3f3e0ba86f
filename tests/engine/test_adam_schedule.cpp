// The host's half of lazy dense Adam's closed form (kernels/src/field/adam_schedule.hpp): the
// table of skipped steps' sums against the steps taken one by one, in double.
#include "field/adam_schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ff::engine::detail {
namespace {

TrainOptions schedule() {
    TrainOptions o;
    o.steps = 2000;
    o.lr_grid = 3e-2f;
    o.lr_warmup = 0.05f;     // 100 steps of ramp
    o.lr_decay_start = 0.4f; // then a hold, then the decay: every part of the schedule is crossed
    o.lr_final_scale = 0.05f;
    return o;
}

// Parameter after zero-gradient Adam steps from + 1 .. to, one by one (the eager form), from the
// moments m, v after step `from`.
double stepwise(const TrainOptions& o, double p, double m, double v, uint32_t from, uint32_t to) {
    for (uint32_t t = from + 1; t <= to; ++t) {
        m *= o.beta1;
        v *= o.beta2;
        const double lr = o.lr_grid * learning_rate_scale(o, t - 1);
        const double m_hat = m / (1 - std::pow(double(o.beta1), t)), v_hat = v / (1 - std::pow(double(o.beta2), t));
        p -= lr * m_hat / (std::sqrt(v_hat) + o.epsilon);
    }
    return p;
}

// The closed form as encoding_catch_up.glsl takes it: two lookups of each sum, clamped past the
// table's end, epsilon's share as a series in delta = eps / sqrt(v) of `terms` terms (3 in the
// shader; fewer to show what each adds).
double closed_form(const TrainOptions& o, const std::vector<float>& sums, double p, double m, double v,
                   uint32_t from, uint32_t to, uint32_t terms = kCatchUpTerms) {
    auto at = [&](uint32_t f, uint32_t n) {
        return double(sums[kCatchUpStride * std::min<size_t>(f, sums.size() / kCatchUpStride - 1) + n]);
    };
    const double root = std::sqrt(v), delta = o.epsilon / root;
    double series = 0, power = 1;
    for (uint32_t n = 0; n < terms; ++n, power *= -delta) {
        const double q = o.beta1 / std::pow(double(o.beta2), 0.5 * (n + 1));
        series += power * (at(from, n) - std::pow(q, to - from) * at(to, n));
    }
    return p - (m / root) * series;
}

const uint32_t kGaps[][2] = {{0, 1},     {0, 7},      {5, 6},       {90, 130},    {99, 100},
                             {700, 701}, {700, 950},  {790, 1500},  {1990, 2010}, {1999, 2000},
                             {1000, 6000}, {2500, 2600}, {6000, 9000}, {9000, 9001}};

TEST(AdamSchedule, CatchUpSumsTakeAnyGapInTwoLookups) {
    TrainOptions o = schedule();
    o.epsilon = 0;
    const std::vector<float> sums = catch_up_sums(o, 1u << 20);
    ASSERT_EQ(sums.size(), catch_up_table_floats(o));
    ASSERT_EQ(sums.size(), kCatchUpStride * (o.steps + 1726u)) << "past the end until 0.99^t < 2^-25";
    const double m = 2e-4, v = 3e-8, p = 0.25;
    for (const auto& g : kGaps) {
        const double step = stepwise(o, p, m, v, g[0], g[0] + 1) - p; // one step's move, for scale
        const double want = stepwise(o, p, m, v, g[0], g[1]);
        const double got = closed_form(o, sums, p, m, v, g[0], g[1]);
        EXPECT_NEAR(got, want, 1e-5 * std::abs(step)) << "steps " << g[0] + 1 << ".." << g[1];
    }
}

TEST(AdamSchedule, CatchUpSumsCarryEpsilonToFirstOrder) {
    // epsilon up to 1e-3 of sqrt(v) at the most decayed step the shader takes in closed form: the
    // moves are off by ~d^2 = 1e-6 of themselves. Without the epsilon term they would be off by
    // ~d = 1e-3, which the test must see.
    TrainOptions o = schedule();
    const double m = 2e-9, v = 1e-18, p = 0.25; // sqrt(v) = 1e-9
    o.epsilon = float(1e-3 * 1e-9 * std::pow(double(o.beta2), 0.5 * catch_up_limit(o.beta1, o.beta2)));
    const std::vector<float> sums = catch_up_sums(o, 1u << 20);
    for (const auto& g : kGaps) {
        const double want = stepwise(o, p, m, v, g[0], g[1]);
        const double moved = std::abs(want - p);
        EXPECT_NEAR(closed_form(o, sums, p, m, v, g[0], g[1]), want, 1e-5 * moved) << "steps " << g[0] + 1 << ".." << g[1];
        TrainOptions no_eps = o;
        no_eps.epsilon = 0;
        if (g[1] - g[0] >= 100) // long gaps reach the most decayed v, where d is largest
            EXPECT_GT(std::abs(closed_form(no_eps, sums, p, m, v, g[0], g[1]) - want), 1e-4 * moved)
                << "the epsilon term matters at this size (steps " << g[0] + 1 << ".." << g[1] << ")";
    }
}

TEST(AdamSchedule, CatchUpSumsCarryEpsilonToSecondOrder) {
    // epsilon up to 0.01 of sqrt(v) at the most decayed step the shader takes as a series (its
    // CATCH_UP_SERIES_MAX_D): the three terms are off by ~d^3 ~ 1e-6 of the moves, within the float
    // table's rounding. Two terms, the first-order form, would be off by ~d^2 (1e-5 of the moves
    // here, where d reaches 0.01 only in a gap's last steps), which the test must see.
    TrainOptions o = schedule();
    const double m = 2e-9, v = 1e-18, p = 0.25; // sqrt(v) = 1e-9
    o.epsilon = float(0.01 * 1e-9 * std::pow(double(o.beta2), 0.5 * catch_up_limit(o.beta1, o.beta2)));
    const std::vector<float> sums = catch_up_sums(o, 1u << 20);
    for (const auto& g : kGaps) {
        const double want = stepwise(o, p, m, v, g[0], g[1]);
        const double moved = std::abs(want - p);
        const double three = std::abs(closed_form(o, sums, p, m, v, g[0], g[1]) - want);
        EXPECT_LT(three, 5e-6 * moved) << "steps " << g[0] + 1 << ".." << g[1];
        if (g[1] - g[0] >= 100) // long gaps reach the most decayed v, where d is largest
            EXPECT_GT(std::abs(closed_form(o, sums, p, m, v, g[0], g[1], 2) - want), 4 * std::max(three, 1e-6 * moved))
                << "the second-order term matters at this size (steps " << g[0] + 1 << ".." << g[1] << ")";
    }
}

TEST(AdamSchedule, NoTableWhereTheSkippedStepsDoNotDecay) {
    TrainOptions o = schedule();
    o.beta1 = 0.999f;
    o.beta2 = 0.99f; // beta1 >= sqrt(beta2): the series do not converge
    EXPECT_EQ(catch_up_limit(o.beta1, o.beta2), 0u);
    EXPECT_TRUE(catch_up_sums(o, 1u << 20).empty());
    o.beta1 = 0.95f;
    o.beta2 = 0.965f; // beta1 < sqrt(beta2), but beta1 >= beta2^1.5: the last term's series does not
    EXPECT_GT(catch_up_limit(o.beta1, o.beta2), 0u);
    EXPECT_TRUE(catch_up_sums(o, 1u << 20).empty());
    EXPECT_TRUE(catch_up_sums(schedule(), 1000).empty()) << "a table over its size bound is refused";
}

TEST(AdamSchedule, LearningRateScaleFollowsTheSchedule) {
    const TrainOptions o = schedule();
    EXPECT_NEAR(learning_rate_scale(o, 0), 1.0 / 100, 1e-6);   // the ramp's first step
    EXPECT_NEAR(learning_rate_scale(o, 99), 1.0, 1e-6);        // its end
    EXPECT_NEAR(learning_rate_scale(o, 800), 1.0, 1e-6);       // the hold
    EXPECT_NEAR(learning_rate_scale(o, 2000), 0.05, 1e-9);     // the decay's end
    EXPECT_NEAR(learning_rate_scale(o, 5000), 0.05, 1e-9);     // and after it
}

} // namespace
} // namespace ff::engine::detail
