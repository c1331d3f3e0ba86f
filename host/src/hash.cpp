#include <fieldflow/host/hash.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>

namespace fieldflow::host {

struct Hasher::State {
    XXH3_state_t xxh;
};

std::string Hash128::hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high),
                  static_cast<unsigned long long>(low));
    return buf;
}

Hasher::Hasher() : state_(std::make_unique<State>()) { XXH3_128bits_reset(&state_->xxh); }
Hasher::~Hasher() = default;

Hasher& Hasher::bytes(const void* data, size_t size) {
    if (size) XXH3_128bits_update(&state_->xxh, data, size);
    return *this;
}

Hasher& Hasher::u64(uint64_t v) {
    unsigned char le[8]; // fixed byte order, so keys are the same on every machine
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
    return bytes(le, sizeof le);
}

Hasher& Hasher::text(std::string_view s) {
    u64(s.size());
    return bytes(s.data(), s.size());
}

Hasher& Hasher::hash(const Hash128& h) { return u64(h.high).u64(h.low); }

Hash128 Hasher::finish() const {
    XXH128_hash_t h = XXH3_128bits_digest(&state_->xxh);
    return {h.high64, h.low64};
}

uint64_t checksum64(const void* data, size_t size) { return XXH3_64bits(data, size); }

} // namespace fieldflow::host
