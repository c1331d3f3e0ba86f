// The checkpoint file format (checkpoint_file.hpp): round trip, and a clear error for every kind of
// damage: truncated, corrupt, another version, sizes that do not add up, moments that do not match
// the model. Pure C++: no device.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fieldflow/engine/checkpoint_file.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <numeric>

namespace ff::engine {
namespace {

using Bytes = std::vector<std::byte>;

Checkpoint grid_checkpoint() {
    Checkpoint c;
    c.kind = ModelKind::grid;
    c.trainer.model = test::random_model(test::default_config(5, 4), 3);
    c.trainer.step = 1234;
    const size_t mlp = c.trainer.model.mlp.size(), grid = c.trainer.model.encoding_params.size();
    for (size_t i = 0; i < mlp; ++i) {
        c.trainer.mlp_m.push_back(0.001f * float(i));
        c.trainer.mlp_v.push_back(1e-6f * float(i));
    }
    for (size_t i = 0; i < grid; ++i) {
        c.trainer.encoding_m.push_back(-0.002f * float(i));
        c.trainer.encoding_v.push_back(2e-6f * float(i));
    }
    c.image_width = 20;
    c.image_height = 16;
    const std::string extra = "{\"log\": [1, 2, 3]}";
    for (char ch : extra) c.extra.push_back(std::byte(ch));
    return c;
}

std::string decode_error(const Bytes& bytes) {
    try {
        decode_checkpoint(bytes, "ck.ffckpt");
    } catch (const CheckpointError& e) {
        return e.what();
    }
    return "(decoded)";
}

uint64_t get_u64(const Bytes& b, size_t at) {
    uint64_t v = 0;
    std::memcpy(&v, b.data() + at, 8); // the test machine is little-endian, as the format
    return v;
}
void put_u64(Bytes& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }
void put_u32(Bytes& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

// Recomputes the trailing checksum, so a test meets the check after it rather than "corrupt".
void reseal(Bytes& b) { put_u64(b, b.size() - 8, XXH3_64bits(b.data(), b.size() - 8)); }

TEST(CheckpointFile, GridRoundTripIsExact) {
    const Checkpoint c = grid_checkpoint();
    const Checkpoint back = decode_checkpoint(encode_checkpoint(c), "ck");
    EXPECT_EQ(back.kind, ModelKind::grid);
    EXPECT_EQ(back.trainer.step, 1234u);
    EXPECT_EQ(back.trainer.model.mlp, c.trainer.model.mlp);
    EXPECT_EQ(back.trainer.model.encoding_params, c.trainer.model.encoding_params);
    EXPECT_EQ(back.trainer.model.config.grid_width, 5u);
    EXPECT_EQ(back.trainer.mlp_m, c.trainer.mlp_m);
    EXPECT_EQ(back.trainer.mlp_v, c.trainer.mlp_v);
    EXPECT_EQ(back.trainer.encoding_m, c.trainer.encoding_m);
    EXPECT_EQ(back.trainer.encoding_v, c.trainer.encoding_v);
    EXPECT_EQ(back.image_width, 20u);
    EXPECT_EQ(back.image_height, 16u);
    EXPECT_EQ(back.extra, c.extra);
}

TEST(CheckpointFile, SirenAndSplatsRoundTrip) {
    Checkpoint s;
    s.kind = ModelKind::siren;
    s.trainer.model = initial_model(siren_config(16, 2, 30.0f), 9);
    s.trainer.step = 7;
    s.trainer.mlp_m.assign(s.trainer.model.mlp.size(), 0.5f);
    s.trainer.mlp_v.assign(s.trainer.model.mlp.size(), 0.25f);
    s.image_width = s.image_height = 8;
    const Checkpoint sb = decode_checkpoint(encode_checkpoint(s), "ck");
    EXPECT_EQ(sb.kind, ModelKind::siren);
    EXPECT_EQ(sb.trainer.model.mlp, s.trainer.model.mlp);
    EXPECT_TRUE(sb.trainer.encoding_m.empty());
    EXPECT_TRUE(sb.extra.empty());

    Checkpoint p;
    p.kind = ModelKind::splats;
    p.splats.model.config.count = 3;
    p.splats.model.width = 10;
    p.splats.model.height = 6;
    p.splats.model.params.resize(3 * kSplatParams);
    std::iota(p.splats.model.params.begin(), p.splats.model.params.end(), 1.0f);
    p.splats.adam_m.assign(3 * kSplatParams, 0.125f);
    p.splats.adam_v.assign(3 * kSplatParams, 0.0625f);
    p.splats.step = 99;
    p.image_width = 10;
    p.image_height = 6;
    const Checkpoint pb = decode_checkpoint(encode_checkpoint(p), "ck");
    EXPECT_EQ(pb.kind, ModelKind::splats);
    EXPECT_EQ(pb.splats.step, 99u);
    EXPECT_EQ(pb.splats.model.params, p.splats.model.params);
    EXPECT_EQ(pb.splats.model.width, 10u);
    EXPECT_EQ(pb.splats.adam_m, p.splats.adam_m);
    EXPECT_EQ(pb.splats.adam_v, p.splats.adam_v);
}

TEST(CheckpointFile, EncoderRefusesInconsistentState) {
    Checkpoint c = grid_checkpoint();
    c.trainer.encoding_v.pop_back();
    EXPECT_THROW(encode_checkpoint(c), CheckpointError);
    c = grid_checkpoint();
    c.trainer.mlp_m[2] = std::numeric_limits<float>::infinity();
    try {
        encode_checkpoint(c);
        ADD_FAILURE() << "encoded a non-finite moment";
    } catch (const CheckpointError& e) {
        EXPECT_EQ(std::string(e.what()), "cannot encode checkpoint: MLP Adam m value 2 is not finite");
    }
    c = grid_checkpoint();
    c.image_width = 0; // the embedded model file refuses it
    EXPECT_THROW(encode_checkpoint(c), CheckpointError);
}

TEST(CheckpointFile, TruncatedAtEveryLengthSaysTruncatedOrNotACheckpoint) {
    const Bytes bytes = encode_checkpoint(grid_checkpoint());
    for (size_t n = 0; n < bytes.size(); n += (n < 200 ? 1 : 97)) {
        const std::string e = decode_error(Bytes(bytes.begin(), bytes.begin() + std::ptrdiff_t(n)));
        const bool expected = e.rfind("ck.ffckpt: truncated (", 0) == 0 ||
                              (n < 8 && e == "ck.ffckpt: not a checkpoint (does not start with \"FFCHKPT\")");
        EXPECT_TRUE(expected) << n << " bytes: " << e;
    }
    EXPECT_EQ(decode_error(Bytes(bytes.begin(), bytes.end() - 100)),
              "ck.ffckpt: truncated (expected " + std::to_string(bytes.size()) + " bytes, got " +
                  std::to_string(bytes.size() - 100) + ")");
}

TEST(CheckpointFile, CorruptBytesFailTheChecksum) {
    const Bytes bytes = encode_checkpoint(grid_checkpoint());
    for (size_t at : {size_t(20), size_t(80), bytes.size() / 2, bytes.size() - 30, bytes.size() - 1}) {
        Bytes damaged = bytes;
        damaged[at] ^= std::byte{0x40};
        EXPECT_EQ(decode_error(damaged), "ck.ffckpt: checksum mismatch (corrupt)") << "byte " << at;
    }
    Bytes longer = bytes;
    longer.push_back(std::byte{0});
    EXPECT_EQ(decode_error(longer), "ck.ffckpt: checksum mismatch (corrupt)");
}

TEST(CheckpointFile, OtherFilesAndVersionsAreNamed) {
    EXPECT_EQ(decode_error(Bytes(100, std::byte{'x'})),
              "ck.ffckpt: not a checkpoint (does not start with \"FFCHKPT\")");
    Bytes v2 = encode_checkpoint(grid_checkpoint());
    put_u32(v2, 8, 2);
    reseal(v2);
    EXPECT_EQ(decode_error(v2), "ck.ffckpt: unsupported version 2.0 (this build reads 1)");
}

TEST(CheckpointFile, SizesThatDoNotAddUpAreNamed) {
    const Bytes bytes = encode_checkpoint(grid_checkpoint());
    // extra bytes count one too many (sealed): the header no longer matches the length.
    Bytes more = bytes;
    put_u64(more, 64, get_u64(more, 64) + 1);
    reseal(more);
    EXPECT_EQ(decode_error(more), "ck.ffckpt: size mismatch (the header declares " +
                                      std::to_string(bytes.size() + 1) + " bytes, the checkpoint has " +
                                      std::to_string(bytes.size()) + ")");
    // A count so large the sum overflows.
    Bytes huge = bytes;
    put_u64(huge, 32, ~uint64_t(0) / 2);
    reseal(huge);
    EXPECT_EQ(decode_error(huge), "ck.ffckpt: size mismatch (the header declares sizes that overflow, "
                                  "the checkpoint has " + std::to_string(bytes.size()) + ")");
}

TEST(CheckpointFile, MomentsThatDoNotMatchTheModelAreNamed) {
    const Checkpoint c = grid_checkpoint();
    const size_t mlp = c.trainer.model.mlp.size();
    // One float moved from mlp_m to mlp_v: the total size still adds up, the model does not.
    Bytes shifted = encode_checkpoint(c);
    put_u64(shifted, 32, mlp - 1);
    put_u64(shifted, 40, mlp + 1);
    reseal(shifted);
    EXPECT_EQ(decode_error(shifted),
              "ck.ffckpt: moments do not match the model (MLP Adam m holds " + std::to_string(mlp - 1) +
                  " floats, the model has " + std::to_string(mlp) + " parameters there)");
    // A kind no build knows.
    Bytes kind = encode_checkpoint(c);
    put_u32(kind, 16, 7);
    reseal(kind);
    EXPECT_EQ(decode_error(kind), "ck.ffckpt: unknown model kind 7");
    // The header says splats, the embedded model is a grid model.
    Bytes splats = encode_checkpoint(c);
    put_u32(splats, 16, uint32_t(ModelKind::splats));
    reseal(splats);
    EXPECT_EQ(decode_error(splats), "ck.ffckpt: its model is a grid model, the checkpoint says splats");
}

TEST(CheckpointFile, DamagedEmbeddedModelIsNamed) {
    Bytes bytes = encode_checkpoint(grid_checkpoint());
    bytes[72] = std::byte{'X'}; // the embedded model file's magic
    reseal(bytes);
    const std::string e = decode_error(bytes);
    EXPECT_EQ(e, "ck.ffckpt (model): not a model file (does not start with \"FFMODEL\")");
}

} // namespace
} // namespace ff::engine
