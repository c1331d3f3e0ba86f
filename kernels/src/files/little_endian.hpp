// Little-endian scalars and the XXH3-64 checksum shared by the engine's file formats (model file,
// training checkpoint), independent of the host's byte order.
#pragma once

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ff::engine::detail {

inline void put_u32(std::vector<std::byte>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(std::byte((v >> (8 * i)) & 0xffu));
}
inline void put_u64(std::vector<std::byte>& out, uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(std::byte((v >> (8 * i)) & 0xffu));
}
inline uint32_t get_u32(const std::byte* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(std::to_integer<uint8_t>(p[i])) << (8 * i);
    return v;
}
inline uint64_t get_u64(const std::byte* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(std::to_integer<uint8_t>(p[i])) << (8 * i);
    return v;
}

inline uint64_t checksum(std::span<const std::byte> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

} // namespace ff::engine::detail
