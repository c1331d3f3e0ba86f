// The encodings' names (fieldflow/engine/encoding_names.hpp) and the formats that write them: every
// kind round-trips through its one name, Train takes the grid models' names, and JSON weights
// refuse every encoding they cannot hold instead of writing it as a dense grid.
#include "train_params.hpp"
#include "weights_json_format.hpp"

#include <fieldflow/engine/encoding_names.hpp>
#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/node.hpp>

#include <gtest/gtest.h>

#include <string>

namespace fe = ff::engine;

namespace {

fe::ModelFile small_model(fe::EncodingKind kind) {
    fe::ModelConfig c;
    c.grid_width = c.grid_height = 4;
    c.hidden_width = 16;
    if (kind == fe::EncodingKind::hash_grid) {
        c.encoding.kind = kind;
        c.encoding.hash.levels = 2;
        c.encoding.hash.log2_table_size = 10;
        c.grid_width = c.grid_height = 0;
    }
    if (kind == fe::EncodingKind::frequency) {
        c.encoding.kind = kind;
        c.grid_width = c.grid_height = 0;
    }
    if (kind == fe::EncodingKind::coords) c = fe::siren_config(16, 2);
    fe::ModelFile file;
    file.kind = kind == fe::EncodingKind::coords ? fe::ModelKind::siren : fe::ModelKind::grid;
    file.model = fe::initial_model(c, 1);
    file.image_width = file.image_height = 8;
    return file;
}

} // namespace

TEST(EncodingNames, EveryKindRoundTripsThroughItsName) {
    EXPECT_EQ(fe::encoding_name(fe::EncodingKind::dense_grid), "dense_grid");
    EXPECT_EQ(fe::encoding_name(fe::EncodingKind::coords), "coords");
    EXPECT_EQ(fe::encoding_name(fe::EncodingKind::hash_grid), "hash_grid");
    EXPECT_EQ(fe::encoding_name(fe::EncodingKind::frequency), "frequency");
    for (auto kind : {fe::EncodingKind::dense_grid, fe::EncodingKind::coords, fe::EncodingKind::hash_grid,
                      fe::EncodingKind::frequency})
        EXPECT_EQ(fe::find_encoding(fe::encoding_name(kind)), kind);
    EXPECT_EQ(fe::encoding_names(), "dense_grid, coords, hash_grid or frequency");
}

// Train's `encoding` param takes every grid-model encoding by its one name (and the two older
// words); coords is TrainSiren's.
TEST(EncodingNames, TrainTakesEveryGridModelEncoding) {
    for (auto kind : {fe::EncodingKind::dense_grid, fe::EncodingKind::hash_grid, fe::EncodingKind::frequency})
        EXPECT_EQ(ff::neural::train_encoding(std::string(fe::encoding_name(kind))), kind);
    EXPECT_EQ(ff::neural::train_encoding("hash"), fe::EncodingKind::hash_grid);
    EXPECT_EQ(ff::neural::train_encoding("coords"), std::nullopt);
    EXPECT_EQ(ff::neural::train_encoding("fourier"), std::nullopt);
}

TEST(EncodingNames, UnknownNamesAndKindsAreRefused) {
    EXPECT_EQ(fe::find_encoding("hash"), std::nullopt); // Train's param word, not a file's name
    EXPECT_EQ(fe::find_encoding(""), std::nullopt);
    EXPECT_THROW(fe::encoding_name(fe::EncodingKind(7)), fe::EngineError);
}

TEST(EncodingNames, JsonWeightsWriteAndReadTheEncodingsName) {
    for (auto kind : {fe::EncodingKind::dense_grid, fe::EncodingKind::coords}) {
        nlohmann::json j = ff::neural::weights_to_json(small_model(kind));
        EXPECT_EQ(j["encoding"]["kind"], std::string(fe::encoding_name(kind)));
        EXPECT_EQ(ff::neural::weights_from_json(j, "w.json").model.config.encoding.kind, kind);
    }
}

TEST(EncodingNames, JsonWeightsRefuseEveryEncodingTheyCannotHold) {
    for (auto kind : {fe::EncodingKind::hash_grid, fe::EncodingKind::frequency}) {
        const std::string name(fe::encoding_name(kind));
        try {
            ff::neural::weights_to_json(small_model(kind));
            FAIL() << "a " << name << " model was written as JSON weights";
        } catch (const ff::Error& e) {
            EXPECT_NE(std::string(e.what()).find("a " + name + " model is saved as a .ffm model file"), std::string::npos)
                << e.what();
        }
    }
    // A kind this build has no encoding for is never written under another encoding's name.
    fe::ModelFile unknown = small_model(fe::EncodingKind::dense_grid);
    unknown.model.config.encoding.kind = fe::EncodingKind(7);
    EXPECT_ANY_THROW(ff::neural::weights_to_json(unknown));

    nlohmann::json j = ff::neural::weights_to_json(small_model(fe::EncodingKind::dense_grid));
    for (const char* name : {"hash_grid", "dense", "frequency"}) {
        j["encoding"]["kind"] = name;
        try {
            ff::neural::weights_from_json(j, "w.json");
            FAIL() << "encoding.kind '" << name << "' was read";
        } catch (const ff::Error& e) {
            EXPECT_NE(std::string(e.what()).find("encoding.kind is '" + std::string(name) + "'"), std::string::npos)
                << e.what();
        }
    }
}
