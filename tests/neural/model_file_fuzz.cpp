// libFuzzer target for the model file decoder (built with -DFIELDFLOW_FUZZ=ON and clang):
//   ff_model_file_fuzz -max_total_time=60 CORPUS_DIR
// The decoder must either throw ModelFileError or return a model that encodes again and decodes
// to the same weights; anything else (a crash, a sanitizer report, another exception) is a bug.
#include <fieldflow/engine/model_file.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

namespace fe = ff::engine;

void check(std::span<const std::byte> bytes) {
    fe::ModelFile file;
    try {
        file = fe::decode_model_file(bytes, "fuzz");
    } catch (const fe::ModelFileError&) {
        return;
    }
    std::vector<std::byte> again = fe::encode_model_file(file);
    fe::ModelFile back = fe::decode_model_file(again, "re-encoded");
    if (back.model.encoding_params.size() != file.model.encoding_params.size() ||
        back.model.mlp.size() != file.model.mlp.size() ||
        std::memcmp(back.model.encoding_params.data(), file.model.encoding_params.data(), 4 * file.model.encoding_params.size()) != 0 ||
        std::memcmp(back.model.mlp.data(), file.model.mlp.data(), 4 * file.model.mlp.size()) != 0)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto* bytes = reinterpret_cast<const std::byte*>(data);
    check(std::span(bytes, size));
    // Again with a valid checksum in the last 8 bytes, so mutations reach the checks behind it
    // (header keys, configuration, float counts, weights) instead of stopping at the checksum.
    if (size >= 16) {
        std::vector<std::byte> sealed(bytes, bytes + size);
        uint64_t sum = XXH3_64bits(sealed.data(), size - 8);
        for (int i = 0; i < 8; ++i) sealed[size - 8 + i] = std::byte((sum >> (8 * i)) & 0xff);
        check(sealed);
    }
    return 0;
}
