// Model file version 1.1: SIREN and splat models round-trip, version 1.0 files still read, and a
// header whose kind and contents disagree is an error naming both.
#include <fieldflow/engine/model_file.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace fe = ff::engine;

namespace {

std::string as_string(const std::vector<std::byte>& b) { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

std::vector<std::byte> as_bytes(const std::string& s) {
    std::vector<std::byte> out(s.size());
    for (size_t i = 0; i < s.size(); ++i) out[i] = std::byte(static_cast<unsigned char>(s[i]));
    return out;
}

// Replaces `from` by `to` in the header and recomputes the checksum, as a writer of that text would.
std::vector<std::byte> edit_and_reseal(const std::vector<std::byte>& bytes, const std::string& from,
                                       const std::string& to) {
    std::string text = as_string(bytes);
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at == std::string::npos) return bytes;
    text.replace(at, from.size(), to);
    text.resize(text.size() - 8);
    uint64_t sum = XXH3_64bits(text.data(), text.size());
    for (int i = 0; i < 8; ++i) text.push_back(char((sum >> (8 * i)) & 0xff));
    return as_bytes(text);
}

std::string decode_error(const std::vector<std::byte>& bytes) {
    try {
        fe::decode_model_file(bytes, "m.ffm");
    } catch (const fe::ModelFileError& e) {
        return e.what();
    }
    return "(no error)";
}

fe::ModelFile siren_file() {
    fe::ModelFile f;
    f.kind = fe::ModelKind::siren;
    f.model = fe::initial_model(fe::siren_config(32, 3, 30.0f), 3);
    f.image_width = 40;
    f.image_height = 30;
    f.training.steps = 10;
    return f;
}

fe::ModelFile splat_file(uint32_t count) {
    fe::ModelFile f;
    f.kind = fe::ModelKind::splats;
    f.splats.config.count = count;
    f.splats.width = 40;
    f.splats.height = 30;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    f.splats.params.resize(size_t(count) * fe::kSplatParams);
    for (float& v : f.splats.params) v = u(rng);
    f.image_width = 40;
    f.image_height = 30;
    return f;
}

} // namespace

TEST(ModelKinds, SirenRoundTripsWithItsOmegasAndNoGrid) {
    fe::ModelFile original = siren_file();
    std::vector<std::byte> bytes = fe::encode_model_file(original);
    const std::string text = as_string(bytes);
    EXPECT_NE(text.find("\nmodel siren\n"), std::string::npos);
    EXPECT_NE(text.find("\nencoding coords\n"), std::string::npos);
    EXPECT_NE(text.find("\nfirst_omega 30\n"), std::string::npos);
    EXPECT_NE(text.find("\ngrid_floats 0\n"), std::string::npos);
    fe::ModelFile back = fe::decode_model_file(bytes, "m.ffm");
    EXPECT_EQ(back.kind, fe::ModelKind::siren);
    EXPECT_EQ(back.model.config.encoding.kind, fe::EncodingKind::coords);
    EXPECT_EQ(back.model.config.first_omega, 30.0f);
    EXPECT_EQ(back.model.config.hidden_omega, 30.0f);
    EXPECT_EQ(back.model.config.hidden_activation, fe::Activation::sine);
    EXPECT_TRUE(back.model.encoding_params.empty());
    EXPECT_EQ(back.model.mlp, original.model.mlp);
    EXPECT_EQ(fe::encode_model_file(back), bytes);
}

TEST(ModelKinds, SplatsRoundTrip) {
    fe::ModelFile original = splat_file(17);
    std::vector<std::byte> bytes = fe::encode_model_file(original);
    EXPECT_NE(as_string(bytes).find("\nmodel splats\nsplat_count 17\n"), std::string::npos);
    fe::ModelFile back = fe::decode_model_file(bytes, "m.ffm");
    EXPECT_EQ(back.kind, fe::ModelKind::splats);
    EXPECT_EQ(back.splats.config.count, 17u);
    EXPECT_EQ(back.splats.width, 40u);
    EXPECT_EQ(back.splats.height, 30u);
    EXPECT_EQ(back.splats.params, original.splats.params);
    EXPECT_EQ(fe::encode_model_file(back), bytes);
}

TEST(ModelKinds, SplatCountAndPayloadMustAgree) {
    std::vector<std::byte> bytes = fe::encode_model_file(splat_file(4));
    std::string error = decode_error(edit_and_reseal(bytes, "splat_count 4\n", "splat_count 5\n"));
    EXPECT_NE(error.find("payload size mismatch"), std::string::npos) << error;
    fe::ModelFile empty = splat_file(1);
    empty.splats.config.count = 0;
    empty.splats.params.clear();
    EXPECT_THROW(fe::encode_model_file(empty), fe::ModelFileError);
    fe::ModelFile nan = splat_file(2);
    nan.splats.params[3] = std::nanf("");
    EXPECT_THROW(fe::encode_model_file(nan), fe::ModelFileError);
}

TEST(ModelKinds, AVersion10FileIsAGridModel) {
    // A 1.0 file: no `model`, no omegas (what earlier builds wrote).
    fe::ModelConfig c;
    c.grid_width = 6;
    c.grid_height = 4;
    fe::ModelFile grid;
    grid.model = fe::initial_model(c, 2);
    grid.image_width = 24;
    grid.image_height = 16;
    std::vector<std::byte> bytes = fe::encode_model_file(grid);
    bytes = edit_and_reseal(bytes, "version 1.2\n", "version 1.0\n");
    bytes = edit_and_reseal(bytes, "model grid\n", "");
    bytes = edit_and_reseal(bytes, "first_omega 1\n", "");
    bytes = edit_and_reseal(bytes, "hidden_omega 1\n", "");
    fe::ModelFile back = fe::decode_model_file(bytes, "old.ffm");
    EXPECT_EQ(back.kind, fe::ModelKind::grid);
    EXPECT_EQ(back.model.config.first_omega, 1.0f);
    EXPECT_EQ(back.model.mlp, grid.model.mlp);
    // In a current file the 1.1 keys are required.
    std::vector<std::byte> current = fe::encode_model_file(grid);
    std::string error = decode_error(edit_and_reseal(current, "model grid\n", ""));
    EXPECT_NE(error.find("missing required key 'model'"), std::string::npos) << error;
}

TEST(ModelKinds, KindAndEncodingMustAgree) {
    std::vector<std::byte> bytes = fe::encode_model_file(siren_file());
    std::string error = decode_error(edit_and_reseal(bytes, "model siren\n", "model grid\n"));
    EXPECT_NE(error.find("a grid model with the coords encoding"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "model siren\n", "model mesh\n"));
    EXPECT_NE(error.find("key 'model' is 'mesh'"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "first_omega 30\n", "first_omega -2\n"));
    EXPECT_NE(error.find("key 'first_omega' is '-2'"), std::string::npos) << error;
    // A SIREN with a grid size is not a valid configuration.
    error = decode_error(edit_and_reseal(bytes, "grid_width 0\n", "grid_width 3\n"));
    EXPECT_NE(error.find("must be 0x0 with the coords encoding"), std::string::npos) << error;
    fe::ModelFile wrong = siren_file();
    wrong.kind = fe::ModelKind::grid;
    EXPECT_THROW(fe::encode_model_file(wrong), fe::ModelFileError);
}
