// The host's fp32 -> fp16 conversion (kernels/src/files/half_float.hpp), which fills the fp16
// weight copy the tensor-core kernels read when the weights do not fit shared memory: against known
// bit patterns, including the ties that round to even, subnormals, overflow and NaN.
#include "files/half_float.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ff::engine::detail {
namespace {

// The binary16 value of a bit pattern, to check a conversion both ways.
double half_value(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

TEST(HalfFloat, KnownValuesRoundToNearestEven) {
    EXPECT_EQ(to_half(0.0f), 0x0000);
    EXPECT_EQ(to_half(-0.0f), 0x8000);
    EXPECT_EQ(to_half(1.0f), 0x3c00);
    EXPECT_EQ(to_half(-2.0f), 0xc000);
    EXPECT_EQ(to_half(0.1f), 0x2e66);
    EXPECT_EQ(to_half(65504.0f), 0x7bff);                        // the largest half
    EXPECT_EQ(to_half(65519.0f), 0x7bff);                        // below the tie: stays
    EXPECT_EQ(to_half(65520.0f), 0x7c00);                        // the tie rounds to even: inf
    EXPECT_EQ(to_half(std::ldexp(1.0f, -14)), 0x0400);           // the smallest normal
    EXPECT_EQ(to_half(std::ldexp(1.0f, -24)), 0x0001);           // the smallest subnormal
    EXPECT_EQ(to_half(std::ldexp(1.0f, -25)), 0x0000);           // half of it: a tie, to even (0)
    EXPECT_EQ(to_half(std::ldexp(1.5f, -25)), 0x0001);           // above the tie
    EXPECT_EQ(to_half(std::ldexp(3.0f, -25)), 0x0002);           // 1.5 subnormal ulps: tie, to even
    EXPECT_EQ(to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);    // tie between 1 and 1 + 2^-10: even
    EXPECT_EQ(to_half(1.0f + std::ldexp(3.0f, -11)), 0x3c02);    // tie: to the even neighbour above
    EXPECT_EQ(to_half(std::ldexp(4095.0f, -12)), 0x3c00);        // tie below 1: to even, into the exponent
    EXPECT_EQ(to_half(std::numeric_limits<float>::infinity()), 0x7c00);
    EXPECT_EQ(to_half(-std::numeric_limits<float>::infinity()), 0xfc00);
    const uint16_t nan = to_half(std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(nan & 0x7c00, 0x7c00);
    EXPECT_NE(nan & 0x3ff, 0);
}

TEST(HalfFloat, EveryConversionIsTheNearestHalf) {
    // Over a sweep of magnitudes, the result is within half an ulp of the input.
    for (int e = -26; e <= 15; ++e)
        for (int k = 0; k < 1000; ++k) {
            const float x = std::ldexp(1.0f + k / 1000.0f, e);
            const double h = half_value(to_half(x));
            const double ulp = std::ldexp(1.0, std::max(e, -14) - 10);
            ASSERT_LE(std::abs(h - x), 0.5 * ulp) << x;
        }
}

} // namespace
} // namespace ff::engine::detail
