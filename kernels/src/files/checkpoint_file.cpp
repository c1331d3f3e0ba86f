// Checkpoint encoder/decoder. Layout (docs/model-format.md, "Training checkpoints"), little-endian:
//   "FFCHKPT\n" | u32 major | u32 minor | u32 kind | u32 step | u64 model bytes |
//   u64 float counts of the four moment arrays | u64 extra bytes |
//   model file bytes | moment floats | extra bytes | XXH3-64 of everything before it (u64).
// The model travels as a complete model file (model_file.cpp), so its configuration is checked by
// the same rules as a saved model. Every size is checked against the bytes present before use.
#include <fieldflow/engine/checkpoint_file.hpp>

#include "little_endian.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

namespace ff::engine {
namespace {

using namespace detail;

constexpr std::string_view kMagic = "FFCHKPT\n";
constexpr size_t kHeaderBytes = 72; // magic .. extra bytes count
constexpr size_t kChecksumBytes = 8;
constexpr size_t kMoments = 4;

// What each moment array is called for a model kind (grid and siren: the MLP's and the grid's m
// and v; splats: the parameters' m and v, then two empty arrays).
std::array<const char*, kMoments> moment_names(ModelKind kind) {
    if (kind == ModelKind::splats) return {"splat Adam m", "splat Adam v", "(unused)", "(unused)"};
    return {"MLP Adam m", "MLP Adam v", "encoding Adam m", "encoding Adam v"};
}

[[noreturn]] void fail(std::string_view source, const std::string& what) {
    throw CheckpointError(std::string(source) + ": " + what);
}

// Checked a + b for sizes read from a file.
std::optional<uint64_t> add(uint64_t a, uint64_t b) {
    if (b > std::numeric_limits<uint64_t>::max() - a) return std::nullopt;
    return a + b;
}

// The four moment arrays of a checkpoint and the parameter count each must match.
struct MomentViews {
    std::array<const std::vector<float>*, kMoments> arrays{};
    std::array<uint64_t, kMoments> need{};
};

MomentViews moments_of(const Checkpoint& c) {
    static const std::vector<float> none;
    if (c.kind == ModelKind::splats)
        return {{&c.splats.adam_m, &c.splats.adam_v, &none, &none},
                {c.splats.model.params.size(), c.splats.model.params.size(), 0, 0}};
    const Model& m = c.trainer.model;
    return {{&c.trainer.mlp_m, &c.trainer.mlp_v, &c.trainer.encoding_m, &c.trainer.encoding_v},
            {m.mlp.size(), m.mlp.size(), m.encoding_params.size(), m.encoding_params.size()}};
}

ModelFile model_file_of(const Checkpoint& c) {
    ModelFile file;
    file.kind = c.kind;
    file.image_width = c.image_width;
    file.image_height = c.image_height;
    if (c.kind == ModelKind::splats) file.splats = c.splats.model;
    else file.model = c.trainer.model;
    file.training.steps = c.kind == ModelKind::splats ? c.splats.step : c.trainer.step;
    return file;
}

} // namespace

std::vector<std::byte> encode_checkpoint(const Checkpoint& c) {
    if (c.kind != ModelKind::grid && c.kind != ModelKind::siren && c.kind != ModelKind::splats)
        throw CheckpointError("cannot encode checkpoint: unknown model kind");
    std::vector<std::byte> model;
    try {
        model = encode_model_file(model_file_of(c));
    } catch (const ModelFileError& e) {
        throw CheckpointError(std::string("cannot encode checkpoint: ") + e.what());
    }
    const MomentViews moments = moments_of(c);
    const auto names = moment_names(c.kind);
    uint64_t floats = 0;
    for (size_t i = 0; i < kMoments; ++i) {
        const std::vector<float>& a = *moments.arrays[i];
        if (a.size() != moments.need[i])
            throw CheckpointError("cannot encode checkpoint: " + std::string(names[i]) + " holds " +
                                  std::to_string(a.size()) + " floats, the model needs " +
                                  std::to_string(moments.need[i]));
        for (size_t k = 0; k < a.size(); ++k)
            if (!std::isfinite(a[k]))
                throw CheckpointError("cannot encode checkpoint: " + std::string(names[i]) + " value " +
                                      std::to_string(k) + " is not finite");
        floats += a.size();
    }

    std::vector<std::byte> out;
    out.reserve(kHeaderBytes + model.size() + 4 * floats + c.extra.size() + kChecksumBytes);
    for (char ch : kMagic) out.push_back(std::byte(static_cast<unsigned char>(ch)));
    put_u32(out, kCheckpointFormatMajor);
    put_u32(out, kCheckpointFormatMinor);
    put_u32(out, uint32_t(c.kind));
    put_u32(out, c.kind == ModelKind::splats ? c.splats.step : c.trainer.step);
    put_u64(out, model.size());
    for (const std::vector<float>* a : moments.arrays) put_u64(out, a->size());
    put_u64(out, c.extra.size());
    out.insert(out.end(), model.begin(), model.end());
    for (const std::vector<float>* a : moments.arrays)
        for (float v : *a) put_u32(out, std::bit_cast<uint32_t>(v));
    out.insert(out.end(), c.extra.begin(), c.extra.end());
    put_u64(out, checksum(out));
    return out;
}

Checkpoint decode_checkpoint(std::span<const std::byte> bytes, std::string_view source) {
    if (bytes.size() < kMagic.size() || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
        fail(source, "not a checkpoint (does not start with \"FFCHKPT\")");
    if (bytes.size() < kHeaderBytes + kChecksumBytes)
        fail(source, "truncated (" + std::to_string(bytes.size()) + " bytes, the header alone needs " +
                         std::to_string(kHeaderBytes + kChecksumBytes) + ")");
    const std::byte* p = bytes.data();
    const uint32_t major = get_u32(p + 8), minor = get_u32(p + 12);
    if (major != kCheckpointFormatMajor)
        fail(source, "unsupported version " + std::to_string(major) + "." + std::to_string(minor) +
                         " (this build reads " + std::to_string(kCheckpointFormatMajor) + ")");
    const uint32_t kind_value = get_u32(p + 16);
    const uint32_t step = get_u32(p + 20);
    const uint64_t model_bytes = get_u64(p + 24);
    std::array<uint64_t, kMoments> counts{};
    for (size_t i = 0; i < kMoments; ++i) counts[i] = get_u64(p + 32 + 8 * i);
    const uint64_t extra_bytes = get_u64(p + 64);

    // The size the header declares, every sum checked: a damaged count must not wrap around.
    std::optional<uint64_t> expected = add(kHeaderBytes + kChecksumBytes, model_bytes);
    for (uint64_t n : counts) {
        if (!expected || n > std::numeric_limits<uint64_t>::max() / 4) {
            expected.reset();
            break;
        }
        expected = add(*expected, 4 * n);
    }
    if (expected) expected = add(*expected, extra_bytes);

    const bool intact = checksum(bytes.first(bytes.size() - kChecksumBytes)) ==
                        get_u64(p + bytes.size() - kChecksumBytes);
    if (!intact && expected && bytes.size() < *expected)
        fail(source, "truncated (expected " + std::to_string(*expected) + " bytes, got " +
                         std::to_string(bytes.size()) + ")");
    if (!intact) fail(source, "checksum mismatch (corrupt)");
    if (!expected || bytes.size() != *expected)
        fail(source, "size mismatch (the header declares " +
                         (expected ? std::to_string(*expected) + " bytes" : std::string("sizes that overflow")) +
                         ", the checkpoint has " + std::to_string(bytes.size()) + ")");

    // The bytes are the ones that were written: now their meaning.
    if (kind_value > uint32_t(ModelKind::splats))
        fail(source, "unknown model kind " + std::to_string(kind_value));
    Checkpoint c;
    c.kind = ModelKind(kind_value);
    ModelFile file;
    try {
        file = decode_model_file(bytes.subspan(kHeaderBytes, model_bytes), std::string(source) + " (model)");
    } catch (const ModelFileError& e) {
        throw CheckpointError(e.what());
    }
    if (file.kind != c.kind)
        fail(source, "its model is a " + std::string(model_kind_name(file.kind)) +
                         " model, the checkpoint says " + std::string(model_kind_name(c.kind)));
    c.image_width = file.image_width;
    c.image_height = file.image_height;
    if (c.kind == ModelKind::splats) {
        c.splats.model = std::move(file.splats);
        c.splats.step = step;
    } else {
        c.trainer.model = std::move(file.model);
        c.trainer.step = step;
    }

    const MomentViews need = moments_of(c);
    const auto names = moment_names(c.kind);
    std::array<std::vector<float>*, kMoments> targets{};
    std::vector<float> unused;
    if (c.kind == ModelKind::splats) targets = {&c.splats.adam_m, &c.splats.adam_v, &unused, &unused};
    else targets = {&c.trainer.mlp_m, &c.trainer.mlp_v, &c.trainer.encoding_m, &c.trainer.encoding_v};
    const std::byte* at = p + kHeaderBytes + model_bytes;
    for (size_t i = 0; i < kMoments; ++i) {
        if (counts[i] != need.need[i])
            fail(source, "moments do not match the model (" + std::string(names[i]) + " holds " +
                             std::to_string(counts[i]) + " floats, the model has " +
                             std::to_string(need.need[i]) + " parameters there)");
        std::vector<float>& values = *targets[i];
        values.resize(counts[i]);
        for (uint64_t k = 0; k < counts[i]; ++k, at += 4) {
            values[k] = std::bit_cast<float>(get_u32(at));
            if (!std::isfinite(values[k]))
                fail(source, "invalid moments (" + std::string(names[i]) + " value " + std::to_string(k) +
                                 " is not finite)");
        }
    }
    const auto* extra = at;
    c.extra.assign(extra, extra + extra_bytes);
    return c;
}

} // namespace ff::engine
