// IEEE binary16 from binary32 on the host, rounding to nearest even as the GPU's float16_t()
// conversion does: the fp16 weight copies the tensor-core kernels read (GpuModel::mlp16), and a
// model file's fp16 weights (model_file.cpp); and back.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ff::engine::detail {

inline uint16_t to_half(float value) {
    const uint32_t f = std::bit_cast<uint32_t>(value);
    const uint16_t sign = uint16_t((f >> 16) & 0x8000u);
    const uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) // inf or NaN (NaN keeps a quiet payload bit)
        return uint16_t(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u); // rounds past 65504: inf
    if (abs < 0x38800000u) { // below 2^-14: a subnormal half (or zero)
        if (abs < 0x33000001u) return sign; // below half the smallest subnormal: zero
        const uint32_t mantissa = (abs & 0x007fffffu) | 0x00800000u;
        const uint32_t shift = 126u - (abs >> 23); // 14 + (127 - exponent) - 1 ... in [14, 24]
        const uint32_t half_ulp = 1u << (shift - 1), rest = mantissa & ((1u << shift) - 1);
        uint32_t h = mantissa >> shift;
        if (rest > half_ulp || (rest == half_ulp && (h & 1u))) ++h;
        return uint16_t(sign | h);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13); // rebias the exponent by 112, keep 10 mantissa bits
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h; // may carry into the exponent: right
    return uint16_t(sign | h);
}

// binary16 -> binary32, exactly (every half is a float).
inline float from_half(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13)); // inf, NaN
    if (exponent == 0) { // zero or subnormal: mantissa * 2^-24
        const float magnitude = float(mantissa) * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline std::vector<uint16_t> to_half(const std::vector<float>& values) {
    std::vector<uint16_t> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) out[i] = to_half(values[i]);
    return out;
}

} // namespace ff::engine::detail
