// 128-bit hashes (XXH3-128) for cache keys and content hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fieldflow::host {

struct Hash128 {
    uint64_t high = 0;
    uint64_t low = 0;
    bool operator==(const Hash128&) const = default;
    bool operator<(const Hash128& o) const { return high != o.high ? high < o.high : low < o.low; }
    bool is_zero() const { return high == 0 && low == 0; }
    std::string hex() const; // 32 lowercase hex digits
};

// Streaming hasher. Every variable-length field is length-prefixed, so ("ab","c") and ("a","bc")
// never collide by construction.
class Hasher {
public:
    Hasher();
    ~Hasher();
    Hasher(const Hasher&) = delete;
    Hasher& operator=(const Hasher&) = delete;

    Hasher& bytes(const void* data, size_t size); // raw, no length prefix
    Hasher& u64(uint64_t v);
    Hasher& text(std::string_view s); // length-prefixed
    Hasher& hash(const Hash128& h);
    Hash128 finish() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

uint64_t checksum64(const void* data, size_t size); // XXH3-64, for file integrity

} // namespace fieldflow::host
