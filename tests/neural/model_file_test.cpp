// Model file round trip and every class of damaged file (docs/model-format.md).
#include <fieldflow/engine/model_file.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

namespace fe = ff::engine;

namespace {

fe::ModelConfig small_config() {
    fe::ModelConfig c;
    c.grid_width = 7;
    c.grid_height = 5;
    c.grid_channels = 3;
    c.encoding.subcell = true;
    c.encoding.fourier_octaves = 2;
    c.hidden_width = 16;
    c.hidden_layers = 2;
    c.hidden_activation = fe::Activation::relu;
    c.output_activation = fe::Activation::sigmoid;
    c.output_dims = 3;
    return c;
}

fe::ModelFile random_model_file(const fe::ModelConfig& config, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 0.5f);
    fe::ModelFile file;
    file.model.config = config;
    file.model.encoding_params.resize(fe::encoding_float_count(config));
    file.model.mlp.resize(fe::mlp_float_count(config));
    for (float& v : file.model.encoding_params) v = normal(rng);
    for (float& v : file.model.mlp) v = normal(rng);
    file.image_width = config.grid_width * 4;
    file.image_height = config.grid_height * 4;
    file.training.steps = 1234;
    file.training.batch = 4096;
    file.training.seed = 0xfedcba9876543210ull;
    file.training.lr_mlp = 0.003f;
    file.training.lr_grid = 0.01f;
    file.training.device = "llvmpipe (LLVM 15.0.6, 256 bits)";
    file.training.kernel_path = "portable";
    file.training.final_loss = 0.0012345678901234;
    file.training.final_psnr = 29.87654321;
    file.training.train_seconds = 12.5;
    return file;
}

std::string as_string(const std::vector<std::byte>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::vector<std::byte> as_bytes(const std::string& text) {
    std::vector<std::byte> out(text.size());
    std::memcpy(out.data(), text.data(), text.size());
    return out;
}

// Edits the header text of a valid file and re-seals it with a correct checksum, so the decoder's
// checks behind the checksum are what is tested.
std::vector<std::byte> edit_and_reseal(const std::vector<std::byte>& file, const std::string& from,
                                       const std::string& to) {
    std::string text = as_string(file);
    text.resize(text.size() - 8);
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "header has no '" << from << "'";
    if (at != std::string::npos) text.replace(at, from.size(), to);
    std::vector<std::byte> out = as_bytes(text);
    uint64_t sum = XXH3_64bits(out.data(), out.size());
    for (int i = 0; i < 8; ++i) out.push_back(std::byte((sum >> (8 * i)) & 0xff));
    return out;
}

std::string decode_error(const std::vector<std::byte>& bytes) {
    try {
        fe::decode_model_file(bytes, "test.ffm");
    } catch (const fe::ModelFileError& e) {
        return e.what();
    }
    return "(no error)";
}

size_t payload_offset(const std::vector<std::byte>& bytes) {
    std::string text = as_string(bytes);
    return text.find("\nend\n") + 5;
}

void expect_same_model(const fe::ModelFile& a, const fe::ModelFile& b) {
    const fe::ModelConfig& x = a.model.config;
    const fe::ModelConfig& y = b.model.config;
    EXPECT_EQ(x.grid_width, y.grid_width);
    EXPECT_EQ(x.grid_height, y.grid_height);
    EXPECT_EQ(x.grid_channels, y.grid_channels);
    EXPECT_EQ(x.encoding.subcell, y.encoding.subcell);
    EXPECT_EQ(x.encoding.fourier_octaves, y.encoding.fourier_octaves);
    EXPECT_EQ(x.hidden_width, y.hidden_width);
    EXPECT_EQ(x.hidden_layers, y.hidden_layers);
    EXPECT_EQ(x.hidden_activation, y.hidden_activation);
    EXPECT_EQ(x.output_activation, y.output_activation);
    EXPECT_EQ(x.output_dims, y.output_dims);
    ASSERT_EQ(a.model.encoding_params.size(), b.model.encoding_params.size());
    ASSERT_EQ(a.model.mlp.size(), b.model.mlp.size());
    EXPECT_EQ(0, std::memcmp(a.model.encoding_params.data(), b.model.encoding_params.data(), 4 * a.model.encoding_params.size()));
    EXPECT_EQ(0, std::memcmp(a.model.mlp.data(), b.model.mlp.data(), 4 * a.model.mlp.size()));
    EXPECT_EQ(a.image_width, b.image_width);
    EXPECT_EQ(a.image_height, b.image_height);
    EXPECT_EQ(a.training.steps, b.training.steps);
    EXPECT_EQ(a.training.batch, b.training.batch);
    EXPECT_EQ(a.training.seed, b.training.seed);
    EXPECT_EQ(a.training.lr_mlp, b.training.lr_mlp);
    EXPECT_EQ(a.training.lr_grid, b.training.lr_grid);
    EXPECT_EQ(a.training.device, b.training.device);
    EXPECT_EQ(a.training.kernel_path, b.training.kernel_path);
    EXPECT_EQ(a.training.final_loss, b.training.final_loss);
    EXPECT_EQ(a.training.final_psnr, b.training.final_psnr);
    EXPECT_EQ(a.training.train_seconds, b.training.train_seconds);
}

} // namespace

TEST(ModelFile, RoundTripIsExact) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        fe::ModelConfig config = small_config();
        if (seed == 2) {
            config.hidden_width = 32;
            config.hidden_layers = 3;
            config.grid_channels = 4;
            config.encoding.subcell = false;
            config.encoding.fourier_octaves = 3;
            config.hidden_activation = fe::Activation::sine;
        }
        fe::ModelFile original = random_model_file(config, seed);
        std::vector<std::byte> bytes = fe::encode_model_file(original);
        fe::ModelFile decoded = fe::decode_model_file(bytes, "test.ffm");
        expect_same_model(original, decoded);
        // Encoding is a pure function of the contents.
        EXPECT_EQ(bytes, fe::encode_model_file(decoded));
    }
}

TEST(ModelFile, HashGridRoundTripIsExact) {
    fe::ModelConfig config = small_config();
    config.grid_width = config.grid_height = 0;
    config.encoding.kind = fe::EncodingKind::hash_grid;
    config.encoding.hash = {.levels = 5, .features = 4, .log2_table_size = 11,
                            .base_resolution = 8, .per_level_scale = 1.75f};
    fe::ModelFile original = random_model_file(config, 4);
    original.image_width = 300;
    original.image_height = 200;
    std::vector<std::byte> bytes = fe::encode_model_file(original);
    std::string text = as_string(bytes);
    for (const char* line : {"\nencoding hash_grid\n", "\nhash_levels 5\n", "\nhash_features 4\n",
                             "\nhash_log2_table_size 11\n", "\nhash_base_resolution 8\n",
                             "\nhash_per_level_scale 1.75\n"})
        EXPECT_NE(text.find(line), std::string::npos) << line;
    fe::ModelFile decoded = fe::decode_model_file(bytes, "test.ffm");
    expect_same_model(original, decoded);
    EXPECT_EQ(decoded.model.config, original.model.config);
    EXPECT_EQ(bytes, fe::encode_model_file(decoded));
    // A hash key out of range is the configuration's error, named.
    std::string error = decode_error(edit_and_reseal(bytes, "hash_features 4", "hash_features 3"));
    EXPECT_NE(error.find("hash features 3 must be 1, 2, 4 or 8"), std::string::npos) << error;
}

// The frequency encoding: its one key, no encoding floats, and version 1.4 (the first that has it)
// whatever the weights' precision.
TEST(ModelFile, FrequencyRoundTripSaysItsVersion) {
    fe::ModelConfig config = small_config();
    config.grid_width = config.grid_height = 0;
    config.encoding.kind = fe::EncodingKind::frequency;
    config.encoding.frequency.octaves = 5;
    fe::ModelFile original = random_model_file(config, 5);
    original.image_width = 64;
    original.image_height = 48;
    ASSERT_TRUE(original.model.encoding_params.empty());
    for (fe::WeightPrecision precision : {fe::WeightPrecision::fp32, fe::WeightPrecision::fp16}) {
        original.precision = precision;
        const std::vector<std::byte> bytes = fe::encode_model_file(original);
        const std::string text = as_string(bytes);
        EXPECT_EQ(text.rfind("FFMODEL\nversion 1.4\nmodel grid\nencoding frequency\nfrequency_octaves 5\n", 0), 0u)
            << text.substr(0, 80);
        EXPECT_NE(text.find("\ngrid_floats 0\n"), std::string::npos);
        const fe::ModelFile decoded = fe::decode_model_file(bytes, "test.ffm");
        EXPECT_EQ(decoded.model.config, original.model.config);
        EXPECT_EQ(bytes, fe::encode_model_file(decoded));
    }
    const std::vector<std::byte> bytes = fe::encode_model_file(original);
    std::string error = decode_error(edit_and_reseal(bytes, "frequency_octaves 5", "frequency_octaves 15"));
    EXPECT_NE(error.find("frequency octaves 15 must be 1..14"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "frequency_octaves 5\n", ""));
    EXPECT_NE(error.find("missing required key 'frequency_octaves'"), std::string::npos) << error;
}

// fp16 weights: half the payload, version 1.3 and `weights fp16` in the header; the weights read
// back are each the nearest half to the original (within 2^-11 relative), and re-encoding them is
// exact. fp32 files keep saying 1.2.
TEST(ModelFile, Fp16WeightsHalveThePayloadAndRoundTrip) {
    fe::ModelFile original = random_model_file(small_config(), 11);
    const std::vector<std::byte> full = fe::encode_model_file(original);
    EXPECT_EQ(as_string(full).rfind("FFMODEL\nversion 1.2\n", 0), 0u);
    original.precision = fe::WeightPrecision::fp16;
    const std::vector<std::byte> half = fe::encode_model_file(original);
    const std::string text = as_string(half);
    EXPECT_EQ(text.rfind("FFMODEL\nversion 1.3\n", 0), 0u);
    EXPECT_NE(text.find("\nweights fp16\nend\n"), std::string::npos);
    const size_t floats = original.model.encoding_params.size() + original.model.mlp.size();
    EXPECT_EQ(half.size(), payload_offset(half) + 2 * floats + 8);
    const fe::ModelFile decoded = fe::decode_model_file(half, "half.ffm");
    EXPECT_EQ(decoded.precision, fe::WeightPrecision::fp16);
    for (const auto& [a, b] : {std::pair{&original.model.encoding_params, &decoded.model.encoding_params},
                               std::pair{&original.model.mlp, &decoded.model.mlp}}) {
        ASSERT_EQ(a->size(), b->size());
        for (size_t i = 0; i < a->size(); ++i)
            EXPECT_LE(std::abs((*a)[i] - (*b)[i]), std::max(std::abs((*a)[i]) * 0x1p-11f, 0x1p-25f)) << i;
    }
    EXPECT_EQ(fe::encode_model_file(decoded), half);
    // A value past fp16's range is refused, named; a splat model stays fp32.
    fe::ModelFile big = original;
    big.model.mlp[3] = 70000.0f;
    try {
        fe::encode_model_file(big);
        ADD_FAILURE() << "encoded a value past fp16's range";
    } catch (const fe::ModelFileError& e) {
        EXPECT_NE(std::string(e.what()).find("mlp value 3 (70000) is past fp16's range"), std::string::npos) << e.what();
    }
    // An unknown precision is a malformed header.
    EXPECT_NE(decode_error(edit_and_reseal(half, "weights fp16", "weights fp8")).find("expected fp32 or fp16"),
              std::string::npos);
}

TEST(ModelFile, Version11DenseFilesStillRead) {
    // 1.2 added the hash_grid encoding and its keys; a dense-grid file of 1.1 has the same header.
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 5));
    fe::ModelFile old = fe::decode_model_file(edit_and_reseal(bytes, "version 1.2", "version 1.1"), "old.ffm");
    expect_same_model(random_model_file(small_config(), 5), old);
}

TEST(ModelFile, HeaderIsReadableText) {
    std::string text = as_string(fe::encode_model_file(random_model_file(small_config(), 1)));
    EXPECT_EQ(text.rfind("FFMODEL\nversion 1.2\n", 0), 0u);
    EXPECT_NE(text.find("\ngrid_width 7\n"), std::string::npos);
    EXPECT_NE(text.find("\nhidden_activation relu\n"), std::string::npos);
    EXPECT_NE(text.find("\ntrain_device llvmpipe (LLVM 15.0.6, 256 bits)\n"), std::string::npos);
}

TEST(ModelFile, SizeIsHeaderPlusFloatsPlusChecksum) {
    fe::ModelFile file = random_model_file(small_config(), 1);
    std::vector<std::byte> bytes = fe::encode_model_file(file);
    size_t floats = file.model.encoding_params.size() + file.model.mlp.size();
    EXPECT_EQ(bytes.size(), payload_offset(bytes) + 4 * floats + 8);
    // Payload is the grid then the mlp, fp32 little-endian.
    float first;
    std::memcpy(&first, bytes.data() + payload_offset(bytes), 4);
    EXPECT_EQ(std::bit_cast<uint32_t>(first), std::bit_cast<uint32_t>(file.model.encoding_params[0]));
}

TEST(ModelFile, TruncatedAtAnyOffsetIsAnError) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 4));
    const size_t payload = payload_offset(bytes);
    for (size_t length = 0; length < bytes.size(); ++length) {
        std::vector<std::byte> cut(bytes.begin(), bytes.begin() + length);
        std::string error = decode_error(cut);
        if (length < 8) {
            EXPECT_NE(error.find("not a model file"), std::string::npos) << length << ": " << error;
        } else if (length >= payload) {
            EXPECT_NE(error.find("truncated (expected " + std::to_string(bytes.size()) +
                                 " bytes, got " + std::to_string(length) + ")"),
                      std::string::npos)
                << length << ": " << error;
        } else {
            EXPECT_NE(error.find("truncated"), std::string::npos) << length << ": " << error;
        }
        EXPECT_EQ(error.rfind("test.ffm: ", 0), 0u) << error;
    }
}

TEST(ModelFile, EveryFlippedByteIsAnError) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 5));
    const size_t payload = payload_offset(bytes);
    for (size_t i = 0; i < bytes.size(); ++i) {
        for (uint8_t mask : {uint8_t(0x01), uint8_t(0x80)}) {
            std::vector<std::byte> damaged = bytes;
            damaged[i] ^= std::byte(mask);
            std::string error = decode_error(damaged);
            ASSERT_NE(error, "(no error)") << "flipping byte " << i;
            if (i >= payload) {
                EXPECT_NE(error.find("checksum mismatch (corrupt)"), std::string::npos)
                    << i << ": " << error;
            }
        }
    }
}

TEST(ModelFile, WrongMagicIsNotAModelFile) {
    EXPECT_NE(decode_error(as_bytes("P6\n4 4\n255\n")).find("not a model file"), std::string::npos);
    EXPECT_NE(decode_error({}).find("not a model file"), std::string::npos);
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 6));
    bytes[0] = std::byte('G');
    EXPECT_NE(decode_error(bytes).find("not a model file"), std::string::npos);
}

TEST(ModelFile, WrongMajorVersionIsNamed) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 7));
    std::string error = decode_error(edit_and_reseal(bytes, "version 1.2", "version 2.0"));
    EXPECT_NE(error.find("unsupported version 2.0 (this build reads 1)"), std::string::npos)
        << error;
    error = decode_error(edit_and_reseal(bytes, "version 1.2", "version one"));
    EXPECT_NE(error.find("version 'one' is not MAJOR.MINOR"), std::string::npos) << error;
}

TEST(ModelFile, UnknownKeysOnlyInNewerMinorVersion) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 8));
    std::vector<std::byte> same_minor = edit_and_reseal(bytes, "\nend\n", "\nfuture_key 42\nend\n");
    EXPECT_NE(decode_error(same_minor).find("unknown key 'future_key'"), std::string::npos)
        << decode_error(same_minor);
    std::vector<std::byte> newer = edit_and_reseal(same_minor, "version 1.2", "version 1.7");
    EXPECT_EQ(decode_error(newer), "(no error)");
}

TEST(ModelFile, MissingRequiredKeyIsNamed) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 9));
    std::string error = decode_error(edit_and_reseal(bytes, "hidden_layers 2\n", ""));
    EXPECT_NE(error.find("missing required key 'hidden_layers'"), std::string::npos) << error;
    // Even in a newer minor version a required key stays required.
    error = decode_error(edit_and_reseal(edit_and_reseal(bytes, "version 1.2", "version 1.3"),
                                         "image_width 28\n", ""));
    EXPECT_NE(error.find("missing required key 'image_width'"), std::string::npos) << error;
}

TEST(ModelFile, DuplicateAndMalformedLinesAreRejected) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 10));
    std::string error =
        decode_error(edit_and_reseal(bytes, "hidden_layers 2\n", "hidden_layers 2\nhidden_layers 2\n"));
    EXPECT_NE(error.find("key 'hidden_layers' repeats"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "hidden_layers 2", "hidden_layers two"));
    EXPECT_NE(error.find("key 'hidden_layers' is 'two'"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "hidden_activation relu", "hidden_activation tanh"));
    EXPECT_NE(error.find("key 'hidden_activation' is 'tanh'"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "subcell 1", "subcell yes"));
    EXPECT_NE(error.find("key 'subcell' is 'yes', expected 0 or 1"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "grid_width 7", "Grid_width 7"));
    EXPECT_NE(error.find("does not start with a lowercase key"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "train_device llvmpipe", "train_device llvm\tpipe"));
    EXPECT_NE(error.find("control characters"), std::string::npos) << error;
}

TEST(ModelFile, ConfigurationNotMatchingPayloadIsAMismatch) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 11));
    // Same byte count declared, different grid shape: the float counts no longer add up.
    std::string error = decode_error(edit_and_reseal(bytes, "grid_width 7", "grid_width 8"));
    EXPECT_NE(error.find("payload size mismatch"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "hidden_width 16", "hidden_width 32"));
    EXPECT_NE(error.find("payload size mismatch"), std::string::npos) << error;
    // A declared count larger than the file: with a valid checksum it is a mismatch, not damage.
    fe::ModelFile file = random_model_file(small_config(), 11);
    std::string grid_floats = "grid_floats " + std::to_string(file.model.encoding_params.size());
    error = decode_error(edit_and_reseal(bytes, grid_floats, grid_floats + "0"));
    EXPECT_NE(error.find("payload size mismatch"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, grid_floats, "grid_floats 18446744073709551615"));
    EXPECT_NE(error.find("payload size mismatch"), std::string::npos) << error;
}

TEST(ModelFile, TrailingBytesAreAMismatch) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 12));
    std::string text = as_string(bytes);
    text.resize(text.size() - 8);
    text += "XXXX";
    std::vector<std::byte> longer = edit_and_reseal(as_bytes(text + "12345678"), "end\n", "end\n");
    std::string error = decode_error(longer);
    EXPECT_NE(error.find("payload size mismatch"), std::string::npos) << error;
}

TEST(ModelFile, InvalidConfigurationIsNamed) {
    std::vector<std::byte> bytes = fe::encode_model_file(random_model_file(small_config(), 13));
    std::string error = decode_error(edit_and_reseal(bytes, "grid_width 7", "grid_width 0"));
    EXPECT_NE(error.find("invalid configuration"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "hidden_layers 2", "hidden_layers 4000000000"));
    EXPECT_NE(error.find("invalid configuration"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "encoding dense_grid", "encoding octree"));
    EXPECT_NE(error.find("encoding 'octree' is not supported; this build reads"), std::string::npos)
        << error;
    // A hash grid needs its own keys: a dense header relabelled is named, not misread.
    error = decode_error(edit_and_reseal(bytes, "encoding dense_grid", "encoding hash_grid"));
    EXPECT_NE(error.find("missing required key 'hash_levels'"), std::string::npos) << error;
    error = decode_error(edit_and_reseal(bytes, "image_width 28", "image_width 0"));
    EXPECT_NE(error.find("training image size 0x20"), std::string::npos) << error;
}

TEST(ModelFile, NonFiniteWeightsAreRejectedBothWays) {
    fe::ModelFile file = random_model_file(small_config(), 14);
    file.model.mlp[3] = std::nanf("");
    EXPECT_THROW(fe::encode_model_file(file), fe::ModelFileError);

    file.model.mlp[3] = 0.25f;
    std::vector<std::byte> bytes = fe::encode_model_file(file);
    // Replace 0.25f by an infinity in the payload and re-seal: a well-formed file with bad weights.
    size_t at = payload_offset(bytes) + 4 * (file.model.encoding_params.size() + 3);
    uint32_t inf_bits = std::bit_cast<uint32_t>(std::numeric_limits<float>::infinity());
    std::string text = as_string(bytes);
    text.resize(text.size() - 8);
    for (int i = 0; i < 4; ++i) text[at + i] = char((inf_bits >> (8 * i)) & 0xff);
    std::string error = decode_error(edit_and_reseal(as_bytes(text + "12345678"), "end\n", "end\n"));
    EXPECT_NE(error.find("mlp value 3 is not finite"), std::string::npos) << error;
}

TEST(ModelFile, EncodeRefusesInconsistentModels) {
    fe::ModelFile file = random_model_file(small_config(), 15);
    file.model.encoding_params.pop_back();
    EXPECT_THROW(fe::encode_model_file(file), fe::ModelFileError);
    file = random_model_file(small_config(), 15);
    file.training.device = "two\nlines";
    EXPECT_THROW(fe::encode_model_file(file), fe::ModelFileError);
    file = random_model_file(small_config(), 15);
    file.image_width = 0;
    EXPECT_THROW(fe::encode_model_file(file), fe::ModelFileError);
}

TEST(ModelFile, FloatCountsMatchTheEngineLayout) {
    // The engine's own initialisation defines how many floats a configuration has.
    for (uint32_t width : {16u, 32u, 64u}) {
        fe::ModelConfig config = small_config();
        config.hidden_width = width;
        fe::Model model = fe::initial_model(config, 3);
        EXPECT_EQ(model.encoding_params.size(), fe::encoding_float_count(config));
        EXPECT_EQ(model.mlp.size(), fe::mlp_float_count(config));
    }
}
