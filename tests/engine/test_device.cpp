// Device selection, error reporting and validation plumbing.
#include "test_support.hpp"
#include "field/gpu_model.hpp"
#include "known_devices.hpp"
#include "field/model_layout.hpp"
#include "field/training_plan.hpp"
#include "vulkan/vk_device.hpp"

#include <cstdlib>

namespace ff::engine {
namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Device, ListsAtLeastOneUsableDevice) {
    std::vector<DeviceInfo> devices = list_devices();
    ASSERT_FALSE(devices.empty());
    bool usable = false;
    for (const DeviceInfo& d : devices) {
        EXPECT_FALSE(d.name.empty());
        if (d.missing.empty()) {
            usable = true;
            EXPECT_TRUE(d.float_atomics) << d.name;
            EXPECT_GT(d.subgroup_size, 0u) << d.name;
        }
    }
    EXPECT_TRUE(usable);
}

TEST(Device, AutoPicksAUsableDeviceAndItsKernelPath) {
    Device& d = test::device();
    EXPECT_TRUE(d.info().missing.empty());
    EXPECT_TRUE(d.info().float_atomics);
    // The tensor-core kernels wherever the device has them (the H100), unless the run asks for
    // the portable ones (FIELDFLOW_KERNEL_PATH=portable); lavapipe has none.
    const char* path = std::getenv("FIELDFLOW_KERNEL_PATH");
    const bool portable_asked = path && std::string(path) == "portable";
    EXPECT_EQ(d.kernel_path(), d.info().cooperative_matrix && !portable_asked ? "coopmat" : "portable");
}

TEST(Device, CpuAndIndexSelectors) {
    std::vector<DeviceInfo> devices = list_devices();
    bool has_cpu = false;
    for (const auto& d : devices) has_cpu |= d.type == "cpu";
    if (has_cpu) {
        Device cpu = Device::open("cpu");
        EXPECT_EQ(cpu.info().type, "cpu");
        EXPECT_EQ(cpu.info().subgroup_size, 8u) << "lavapipe runs 8-wide subgroups";
    }
    for (const auto& d : devices) {
        if (!d.missing.empty()) continue;
        Device byindex = Device::open(std::to_string(d.index));
        EXPECT_EQ(byindex.info().index, d.index);
        EXPECT_EQ(byindex.info().name, d.name);
        break;
    }
}

TEST(Device, BadSelectorsGiveClearErrors) {
    try {
        Device::open("banana");
        FAIL();
    } catch (const EngineError& e) {
        EXPECT_TRUE(contains(e.what(), "'banana'")) << e.what();
    }
    try {
        Device::open("99");
        FAIL();
    } catch (const EngineError& e) {
        EXPECT_TRUE(contains(e.what(), "out of range")) << e.what();
    }
}

TEST(Device, AllocatedBytesFollowBuffers) {
    Device& d = test::device();
    uint64_t before = d.allocated_bytes();
    {
        ModelConfig c = test::default_config();
        ImageData img{16, 12, std::vector<float>(16 * 12 * 3, 0.5f)};
        TrainOptions o;
        o.batch = 256;
        Trainer t(d, c, o, img);
        EXPECT_GT(d.allocated_bytes(), before);
        EXPECT_GT(t.device_bytes(), 0u);
        EXPECT_LE(t.device_bytes(), d.allocated_bytes() - before);
    }
    EXPECT_EQ(d.allocated_bytes(), before);
}

// The loader caches what it found per process, so the missing driver is simulated in a fresh
// process: the threadsafe death-test style re-executes this binary for the test.
TEST(DeviceDeathTest, NoDriverIsAClearErrorNotACrash) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("VK_ICD_FILENAMES", "/nonexistent/icd.json", 1);
            setenv("VK_DRIVER_FILES", "/nonexistent/icd.json", 1);
            if (!list_devices().empty()) std::_Exit(3);
            try {
                Device::open("auto");
                std::_Exit(2);
            } catch (const EngineError& e) {
                std::fprintf(stderr, "%s\n", e.what());
                std::_Exit(contains(e.what(), "no Vulkan driver") ? 0 : 4);
            }
        },
        ::testing::ExitedWithCode(0), "no Vulkan driver found");
}

TEST(Device, ValidationCollectsMessages) {
    // The shared test device has validation on; it must have loaded the layer without complaint.
    Device& d = test::device();
    (void)d.info();
    test::expect_validation_clean(0);
}

// Kernels built side by side are the ones kernel() then returns; a failing one is reported once
// all have ended, and does not keep the others from being built.
TEST(Device, PreparedKernelsAreBuiltSideBySideAndAFailureIsRethrown) {
    DeviceImpl& device = test::device().impl();
    const ModelConfig config = test::default_config(13, 9);
    const detail::Defines defines = detail::model_defines(config);
    const detail::Defines optimizer =
        detail::plan_training(test::lavapipe(), config, TrainOptions{}, 13, 9, 8).optimizer.defines;
    const std::vector<detail::KernelRequest> good = {{"render.comp", defines, 3}, {"optimizer.comp", optimizer, 10}};
    std::vector<detail::KernelRequest> with_bad = good;
    with_bad.insert(with_bad.begin(), {"no_such_kernel.comp", defines, 3});
    try {
        device.prepare_kernels(with_bad);
        ADD_FAILURE() << "a shader that does not exist was built";
    } catch (const EngineError& e) {
        EXPECT_NE(std::string(e.what()).find("no_such_kernel.comp"), std::string::npos) << e.what();
    }
    device.prepare_kernels(good); // built by the call above already, or now
    const detail::Kernel& render = device.kernel("render.comp", defines, 3);
    EXPECT_EQ(&render, &device.kernel("render.comp", defines, 3));
    EXPECT_NE(render.pipeline, VK_NULL_HANDLE);
}

TEST(ModelConfig, ValidateNamesTheProblem) {
    ModelConfig c = test::default_config();
    EXPECT_EQ(c.validate(), "");
    c.hidden_width = 48;
    EXPECT_TRUE(contains(c.validate(), "hidden_width 48")) << c.validate();
    c = test::default_config();
    c.grid_width = 0;
    EXPECT_TRUE(contains(c.validate(), "grid size")) << c.validate();
    EXPECT_THROW(initial_model(c, 1), EngineError);
}

// The hash grid's own limits (hash_grid.cpp's validate), each named with its value: the message a
// Train node passes on for a model it cannot build.
TEST(ModelConfig, ValidateNamesTheHashGridsProblem) {
    EXPECT_EQ(test::hash_test_config().validate(), "");
    const struct {
        void (*change)(ModelConfig&);
        const char* message;
    } cases[] = {
        {[](ModelConfig& c) { c.encoding.hash.levels = 33; }, "hash levels 33 must be 1..32"},
        {[](ModelConfig& c) { c.encoding.hash.features = 3; }, "hash features 3 must be 1, 2, 4 or 8"},
        {[](ModelConfig& c) { c.encoding.hash.levels = 32, c.encoding.hash.features = 4; },
         "hash levels x features = 128 must be at most 64"},
        {[](ModelConfig& c) { c.encoding.hash.log2_table_size = 9; }, "hash log2_table_size 9 must be 10..24"},
        {[](ModelConfig& c) { c.encoding.hash.base_resolution = 1; }, "hash base_resolution 1 must be 2..65536"},
        {[](ModelConfig& c) { c.encoding.hash.per_level_scale = 0.5f; }, "hash per_level_scale 0.5 must lie in [1, 4]"},
        {[](ModelConfig& c) { c.encoding.hash.levels = 30, c.encoding.hash.per_level_scale = 2.0f; },
         "exceeds 2^24"},
        {[](ModelConfig& c) { c.grid_width = c.grid_height = 8; }, "grid size 8x8 must be 0x0 with the hash_grid encoding"},
    };
    for (const auto& k : cases) {
        ModelConfig c = test::hash_test_config();
        k.change(c);
        EXPECT_TRUE(contains(c.validate(), k.message)) << "expected '" << k.message << "' in '" << c.validate() << "'";
        EXPECT_THROW(initial_model(c, 1), EngineError) << k.message;
    }
}

// The tensor-core workgroup for a 48 KB device (the H100's Vulkan limit): narrow MLPs keep their
// fp16 weights in shared memory beside 4 subgroups' tiles; widths 64 and 128 and a 5-layer SIREN
// of 64 read them (and their biases) from memory and hold as many subgroups' tiles as fit (3 at
// width 64, 2 at 128); nothing wider than one tile's activations is refused.
TEST(ModelConfig, TensorCoreTilingReadsWideOrLargeWeightsFromMemory) {
    const uint32_t shared = 48 * 1024, invocations = 1024;
    ModelConfig lake = test::default_config(200, 137);
    detail::TrainTiling t = detail::choose_coopmat_tiling(lake, shared, invocations);
    EXPECT_EQ(t.tile, 128u);
    EXPECT_TRUE(t.weights_in_shared);
    // Width 64 fits beside its weights but reads them from memory (faster: more tiles a workgroup).
    ModelConfig wide = lake;
    wide.hidden_width = 64;
    t = detail::choose_coopmat_tiling(wide, shared, invocations);
    EXPECT_EQ(t.tile, 96u);
    EXPECT_FALSE(t.weights_in_shared);
    ModelConfig hash = test::hash64_test_config();
    t = detail::choose_coopmat_tiling(hash, shared, invocations);
    EXPECT_EQ(t.tile, 96u);
    // Training a batch that leaves 132 workgroups of 3 subgroups under two tiles each (2 x 96 x
    // 132 = 25,344 samples), or under 4 for the hash model, which reads 64 cells a sample
    // (50,688): 2 subgroups; from there, and for rendering (batch 0), 3. Width 128 keeps its 2,
    // lake its 4 (weights in shared memory).
    EXPECT_EQ(detail::choose_coopmat_tiling(wide, shared, invocations, 16384, 132).tile, 64u);
    EXPECT_EQ(detail::choose_coopmat_tiling(wide, shared, invocations, 25344, 132).tile, 96u);
    EXPECT_EQ(detail::choose_coopmat_tiling(hash, shared, invocations, 16384, 132).tile, 64u);
    EXPECT_EQ(detail::choose_coopmat_tiling(hash, shared, invocations, 50687, 132).tile, 64u);
    EXPECT_EQ(detail::choose_coopmat_tiling(hash, shared, invocations, 50688, 132).tile, 96u);
    EXPECT_EQ(detail::choose_coopmat_tiling(hash, shared, invocations, 0, 132).tile, 96u);
    EXPECT_EQ(detail::choose_coopmat_tiling(lake, shared, invocations, 16384, 132).tile, 128u);
    ModelConfig widest = lake;
    widest.hidden_width = 128;
    t = detail::choose_coopmat_tiling(widest, shared, invocations);
    EXPECT_EQ(t.tile, 64u);
    EXPECT_EQ(detail::choose_coopmat_tiling(widest, shared, invocations, 1024, 132).tile, 64u);
    EXPECT_FALSE(t.weights_in_shared);
    EXPECT_TRUE(t.coopmat);
    t = detail::choose_coopmat_tiling(siren_config(64, 5, 30.0f), shared, invocations);
    EXPECT_FALSE(t.weights_in_shared);
    EXPECT_GT(t.tile, 0u);
    ModelConfig deep = widest;
    deep.hidden_layers = 8; // 8 x 128 fp16 activations of 32 samples: over 48 KB
    EXPECT_EQ(detail::choose_coopmat_tiling(deep, shared, invocations).tile, 0u);
    // Explicit shared layouts (shared blocks) pass the last matrix's fp32 outputs through the delta
    // slice: 1,280 bytes less a subgroup, which fits a 5th lake subgroup beside the weights
    // (4,640 + 5 x 7,680 bytes; 49,440 with the outputs' own array).
    // It is taken where the batch gives each of 5 subgroups of the 132 workgroups 8 tiles or more.
    detail::TrainTiling blocks = detail::choose_coopmat_tiling(lake, 49440 - 1, invocations, 168960, 132, true);
    EXPECT_TRUE(blocks.shared_blocks);
    EXPECT_TRUE(blocks.weights_in_shared);
    EXPECT_EQ(blocks.tile, 160u);
    EXPECT_EQ(detail::choose_coopmat_tiling(lake, 49440 - 1, invocations, 168959, 132, true).tile, 128u);
    EXPECT_EQ(detail::choose_coopmat_tiling(lake, 49440 - 1, invocations, 0, 132, true).tile, 128u); // rendering
    EXPECT_EQ(detail::choose_coopmat_tiling(lake, 49440 - 1, invocations, 1u << 20, 132, false).tile, 128u);
    ModelConfig narrow = lake;
    narrow.hidden_width = 16; // fits 5 too, but ran slower with them
    EXPECT_EQ(detail::choose_coopmat_tiling(narrow, shared, invocations, 168960, 132, true).tile, 128u);
    // From 8 tiles for each of 6 subgroups of the 132 workgroups (8 x 192 x 132 = 202,752 samples),
    // small ReLU MLPs take a sixth, their weights (6 x 7,680 bytes of tiles for the lake model)
    // leaving shared memory for the fp16 copy, whose blocks the step holds in registers.
    for (const ModelConfig& small : {lake, narrow}) {
        const detail::TrainTiling six = detail::choose_coopmat_tiling(small, shared, invocations, 202752, 132, true);
        EXPECT_EQ(six.tile, 192u) << small.hidden_width;
        EXPECT_FALSE(six.weights_in_shared);
        EXPECT_TRUE(six.weight_fragments);
        EXPECT_EQ(six.bias_fragments, small.hidden_width == 16); // two bias blocks: held
        EXPECT_EQ(detail::choose_coopmat_tiling(small, shared, invocations, 202751, 132, true).tile,
                  small.hidden_width == 16 ? 128u : 160u);
        EXPECT_NE(detail::choose_coopmat_tiling(small, shared, invocations, 0, 132, true).tile, 192u); // rendering
    }
    ModelConfig sine = lake; // measured on ReLU MLPs only
    sine.hidden_activation = Activation::sine;
    EXPECT_NE(detail::choose_coopmat_tiling(sine, shared, invocations, 1u << 20, 132, true).tile, 192u);
    // The lake model's 8 weight blocks stay in registers for a step where each subgroup has two
    // tiles or more (2 x 128 x 132 = 33,792 samples); wider MLPs (their weights in memory) never.
    EXPECT_FALSE(detail::choose_coopmat_tiling(lake, shared, invocations, 33791, 132).weight_fragments);
    EXPECT_TRUE(detail::choose_coopmat_tiling(lake, shared, invocations, 33792, 132).weight_fragments);
    EXPECT_FALSE(detail::choose_coopmat_tiling(lake, shared, invocations).weight_fragments); // rendering
    EXPECT_FALSE(detail::choose_coopmat_tiling(wide, shared, invocations, 1u << 20, 132).weight_fragments);
    // Their bias rows only where they are at most two blocks: width 16 holds them, the lake model
    // (32 x 2: four) loads them per row block; never without the weight blocks.
    EXPECT_TRUE(detail::choose_coopmat_tiling(narrow, shared, invocations, 1u << 20, 132).bias_fragments);
    EXPECT_FALSE(detail::choose_coopmat_tiling(lake, shared, invocations, 1u << 20, 132).bias_fragments);
    EXPECT_FALSE(detail::choose_coopmat_tiling(narrow, shared, invocations, 16384, 132).bias_fragments);
    EXPECT_FALSE(detail::choose_coopmat_tiling(lake, shared, invocations).shared_blocks);
    // Width 64 and the hash model's MLP do not fit a 4th subgroup even so.
    EXPECT_EQ(detail::choose_coopmat_tiling(wide, shared, invocations, 1u << 20, 132, true).tile, 96u);
    EXPECT_EQ(detail::choose_coopmat_tiling(hash, shared, invocations, 1u << 20, 132, true).tile, 96u);
}

// Wide ReLU MLPs train on one tile a workgroup shared by width / 16 subgroups: the largest tile
// whose slices fit shared memory, where the device lays shared memory out explicitly.
TEST(ModelConfig, WideReluMlpsTrainOnSharedTiles) {
    const uint32_t shared = 48 * 1024, invocations = 1024;
    const ModelConfig lake = test::default_config(200, 137);
    ModelConfig wide = lake;
    wide.hidden_width = 64;
    // 16 + 2 * 64 + 16 columns of 136 halves: 43,520 bytes, the bias selectors' 512 and a float a
    // subgroup.
    std::optional<detail::TrainTiling> t = detail::choose_shared_tile(wide, shared, invocations, true);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tile, 128u);
    EXPECT_EQ(t->shared_tile_rows, 128u);
    EXPECT_EQ(t->tile_samples(), 128u);
    EXPECT_EQ(t->rows_per_group(), 1u);
    EXPECT_TRUE(t->coopmat && t->weights_in_memory() && t->shared_blocks && t->weight_fragments);
    EXPECT_TRUE(t->first_weight_fragments) << "160 registers of held fragments";
    EXPECT_FALSE(t->ends_by_columns) << "every subgroup holds samples";
    // The hash model's 32 inputs: 176 columns, 48,400 bytes, the same tile; 48,399 bytes: 64 rows.
    // Its first matrix's 8 blocks would take the held fragments to 184 registers: loaded.
    const ModelConfig hash = test::hash64_test_config();
    ASSERT_EQ(hash.padded_input_width(), 32u);
    t = detail::choose_shared_tile(hash, shared, invocations, true);
    EXPECT_EQ(t->shared_tile_rows, 128u);
    EXPECT_TRUE(t->weight_fragments);
    EXPECT_FALSE(t->first_weight_fragments);
    EXPECT_EQ(detail::choose_shared_tile(hash, 48400, invocations, true)->shared_tile_rows, 128u);
    EXPECT_EQ(detail::choose_shared_tile(hash, 48399, invocations, true)->shared_tile_rows, 64u);
    auto with = [](auto field, auto value) {
        KernelOverrides o;
        o.*field = value;
        return o;
    };
    EXPECT_TRUE(detail::choose_shared_tile(hash, shared, invocations, true, 0, 0,
                                           with(&KernelOverrides::first_weight_fragments, true))
                    ->first_weight_fragments);
    // Width 128: 8 subgroups on 64 samples (288 columns of 72 halves), its blocks held for the
    // step but the first matrix's (304 registers of held fragments).
    ModelConfig widest = lake;
    widest.hidden_width = 128;
    t = detail::choose_shared_tile(widest, shared, invocations, true);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tile, 256u);
    EXPECT_EQ(t->shared_tile_rows, 64u);
    EXPECT_TRUE(t->weight_fragments);
    EXPECT_FALSE(t->first_weight_fragments);
    EXPECT_TRUE(t->ends_by_columns) << "2 sample subgroups of 8";
    EXPECT_TRUE(t->stage_inputs && t->late_encoding);
    EXPECT_FALSE(t->encoding_inputs_by_rows) << "late, by columns";
    EXPECT_TRUE(t->stage_targets);
    // 288 slices of 72 halves, the selectors, 8 subgroups' losses; the staging slice and the
    // input gradients' columns (16 x 72 halves each); two tiles' targets and four tiles' pixels
    // (64 samples: the most of 3 fp32 outputs, or 2 + 2 words of RGBA16 and 4 pixels).
    EXPECT_EQ(t->shared_bytes, 42016u + 2304u + 2304u + 2048u);
    t = detail::choose_shared_tile(widest, 42016 + 2304 + 2304 + 2047, invocations, true);
    EXPECT_TRUE(t->late_encoding);
    EXPECT_FALSE(t->stage_targets) << "no room for the targets";
    EXPECT_EQ(t->shared_bytes, 42016u + 2304u + 2304u);
    EXPECT_FALSE(detail::choose_shared_tile(widest, shared, invocations, true, 0, 0,
                                            with(&KernelOverrides::stage_targets, false))
                     ->stage_targets);
    {
        KernelOverrides o;
        o.encoding_inputs_by_rows = o.stage_inputs = false;
        t = detail::choose_shared_tile(widest, shared, invocations, true, 0, 0, o);
        EXPECT_FALSE(t->encoding_inputs_by_rows || t->stage_inputs || t->late_encoding || t->stage_targets)
            << "the late pass and the targets take the staged inputs' order";
        EXPECT_EQ(t->shared_bytes, 42016u);
    }
    {
        t = detail::choose_shared_tile(widest, shared, invocations, true, 0, 0,
                                       with(&KernelOverrides::late_encoding, false));
        EXPECT_TRUE(t->stage_inputs && t->encoding_inputs_by_rows);
        EXPECT_FALSE(t->late_encoding);
        EXPECT_TRUE(t->stage_targets);
        EXPECT_EQ(t->shared_bytes, 42016u + 2304u + 2048u);
    }
    EXPECT_FALSE(detail::choose_shared_tile(widest, 42016 + 2303, invocations, true)->stage_inputs)
        << "no room for the staging slice";
    t = detail::choose_shared_tile(widest, 42016 + 2304 + 2303, invocations, true);
    EXPECT_TRUE(t->stage_inputs);
    EXPECT_FALSE(t->late_encoding) << "no room for the input gradients' columns";
    // One hidden layer: 128-sample tiles, 4 sample subgroups of 8, staged (the encoding's 16
    // padded inputs' gradients fit the delta slice) but none left for the late pass; 32 inputs
    // (a 16-level hash grid's) do not fit: neither form there.
    ModelConfig single = widest;
    single.hidden_layers = 1;
    t = detail::choose_shared_tile(single, shared, invocations, true);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->shared_tile_rows, 128u);
    EXPECT_TRUE(t->ends_by_columns && t->stage_inputs);
    EXPECT_FALSE(t->late_encoding);
    ModelConfig single_hash = test::hash64_test_config();
    single_hash.hidden_width = 128;
    single_hash.hidden_layers = 1;
    ASSERT_EQ(single_hash.padded_input_width(), 32u);
    t = detail::choose_shared_tile(single_hash, shared, invocations, true);
    ASSERT_TRUE(t.has_value() && t->ends_by_columns);
    EXPECT_FALSE(t->stage_inputs || t->late_encoding);
    // The shared tile holds its weight blocks at any batch, a tile a workgroup or less too, and
    // whatever a measurement asks (weight_fragments is the tile a subgroup's choice).
    EXPECT_TRUE(detail::choose_shared_tile(widest, shared, invocations, true, 1024, 132)->weight_fragments);
    EXPECT_TRUE(detail::choose_shared_tile(wide, shared, invocations, true, 1024, 132)->weight_fragments);
    EXPECT_TRUE(detail::choose_shared_tile(widest, shared, invocations, true, 1u << 20, 132,
                                           with(&KernelOverrides::weight_fragments, false))
                    ->weight_fragments);
    // The lake model (width 32) in two parts; not width 16, sine layers, devices without explicit
    // layouts or too few invocations.
    t = detail::choose_shared_tile(lake, shared, invocations, true);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tile, 128u);
    EXPECT_EQ(t->shared_tile_rows, 128u);
    EXPECT_EQ(t->shared_tile_parts, 2u);
    EXPECT_EQ(t->rows_per_group(), 2u);
    EXPECT_TRUE(t->weight_fragments && t->first_weight_fragments);
    EXPECT_FALSE(t->ends_by_columns);
    EXPECT_FALSE(t->encoding_inputs_by_rows || t->stage_inputs || t->late_encoding)
        << "no staged parts where the ends are by rows";
    EXPECT_TRUE(detail::choose_shared_tile(lake, shared, invocations, true, 0, 0,
                                           with(&KernelOverrides::ends_by_columns, true))
                    ->ends_by_columns);
    // ... in three (six subgroups, 192-sample tiles: 96 columns of 200 halves, 38,936 bytes) where
    // the batch gives each of the workgroups 32 such tiles and they fit.
    const uint32_t many = 32 * 192 * 132;
    t = detail::choose_shared_tile(lake, shared, invocations, true, many, 132);
    EXPECT_EQ(t->shared_tile_parts, 3u);
    EXPECT_EQ(t->shared_tile_rows, 192u);
    EXPECT_EQ(t->shared_bytes, 38936u);
    EXPECT_EQ(detail::choose_shared_tile(lake, shared, invocations, true, many - 1, 132)->shared_tile_parts, 2u);
    EXPECT_EQ(detail::choose_shared_tile(lake, 38935, invocations, true, many, 132)->shared_tile_parts, 2u);
    ModelConfig narrow = lake;
    narrow.hidden_width = 16;
    EXPECT_FALSE(detail::choose_shared_tile(narrow, shared, invocations, true).has_value());
    EXPECT_FALSE(detail::choose_shared_tile(siren_config(64, 3, 30.0f), shared, invocations, true).has_value());
    EXPECT_FALSE(detail::choose_shared_tile(wide, shared, invocations, false).has_value());
    EXPECT_FALSE(detail::choose_shared_tile(widest, shared, 128, true).has_value());
    // The kernel options turn it off, or on for width 16, and set the parts (measurements); the
    // other layout's tile or weights options ask for that layout.
    EXPECT_FALSE(detail::choose_shared_tile(wide, shared, invocations, true, 0, 0,
                                            with(&KernelOverrides::shared_tile, false))
                     .has_value());
    EXPECT_FALSE(
        detail::choose_shared_tile(wide, shared, invocations, true, 0, 0, with(&KernelOverrides::tile, 64u)).has_value());
    EXPECT_FALSE(detail::choose_shared_tile(lake, shared, invocations, true, 0, 0,
                                            with(&KernelOverrides::weights_in_shared, false))
                     .has_value());
    KernelOverrides on = with(&KernelOverrides::shared_tile, true);
    EXPECT_EQ(detail::choose_shared_tile(narrow, shared, invocations, true, 0, 0, on)->shared_tile_parts, 1u);
    on.row_split = 1;
    t = detail::choose_shared_tile(lake, shared, invocations, true, 0, 0, on);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->tile, 64u);
    EXPECT_EQ(t->shared_tile_rows, 64u);
}

// The training request's check (train_kernel_request) and choose_shared_tile take the shared
// tile's conditions from one place (model_layout.hpp): what the chooser makes passes, and a split
// or staging it would not make is refused before anything compiles.
TEST(ModelConfig, SharedTileRequestsAreCheckedAsTheChooserMakesThem) {
    const ModelConfig lake = test::default_config(200, 137);
    ModelConfig widest = lake;
    widest.hidden_width = 128;
    for (const ModelConfig& c : {lake, widest}) {
        const std::optional<detail::TrainTiling> t = detail::choose_shared_tile(c, 48 * 1024, 1024, true);
        ASSERT_TRUE(t.has_value());
        EXPECT_NO_THROW(detail::train_kernel_request(c, *t, true, {})) << c.hidden_width;
    }
    auto refusal = [&](const ModelConfig& c, const detail::TrainTiling& t) {
        try {
            detail::train_kernel_request(c, t, true, {});
        } catch (const EngineError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    // Three parts of the lake model's 192 invocations over 64 rows: a part is not whole row blocks.
    KernelOverrides three;
    three.row_split = 3;
    detail::TrainTiling t = *detail::choose_shared_tile(lake, 48 * 1024, 1024, true, 0, 0, three);
    EXPECT_EQ(refusal(lake, t), "");
    EXPECT_EQ(t.shared_tile_parts, 3u);
    t.shared_tile_rows = 64;
    EXPECT_TRUE(contains(refusal(lake, t), "whole row blocks")) << refusal(lake, t);
    // Width 128's tile staging its inputs with as many sample subgroups as there are subgroups.
    t = *detail::choose_shared_tile(widest, 48 * 1024, 1024, true);
    ASSERT_TRUE(t.stage_inputs);
    t.shared_tile_rows = t.tile;
    EXPECT_TRUE(contains(refusal(widest, t), "staging the next tile's inputs")) << refusal(widest, t);
}

// The optimizer's MLP workgroups (optimizer_params_per_group): the most parameters each that keep
// two a multiprocessor, from 4 to 32; the measured best for each model on the H200's 132.
TEST(ModelConfig, OptimizerGroupsGrowWithTheMlp) {
    auto params = [](ModelConfig c, uint32_t width) {
        c.hidden_width = width;
        return detail::mlp_layout(c).total;
    };
    ModelConfig hash = test::hash_test_config();
    hash.encoding.hash.levels = 16; // 32 inputs, as issue 13's models
    const ModelConfig dense = test::default_config();
    EXPECT_EQ(params(dense, 32), 2128u);
    EXPECT_EQ(params(hash, 64), 7312u);
    EXPECT_EQ(detail::optimizer_params_per_group(params(dense, 32), 132), 8u);   // the lake model
    EXPECT_EQ(detail::optimizer_params_per_group(params(dense, 64), 132), 16u);
    EXPECT_EQ(detail::optimizer_params_per_group(params(hash, 64), 132), 16u);
    EXPECT_EQ(detail::optimizer_params_per_group(params(dense, 128), 132), 32u);
    EXPECT_EQ(detail::optimizer_params_per_group(params(hash, 128), 132), 32u);
    EXPECT_EQ(detail::optimizer_params_per_group(1u << 20, 132), 32u); // at least 8 slices
    EXPECT_EQ(detail::optimizer_params_per_group(params(dense, 16), 132), 4u);
    EXPECT_EQ(detail::optimizer_params_per_group(100, 132), 4u); // at most 64 slices
    EXPECT_EQ(detail::optimizer_params_per_group(params(dense, 128), 0), 8u); // multiprocessors unknown
}

// Local gradient sums (choose_local_gradient_cells): whole hash levels from the coarsest, those a
// workgroup reads at least min_hits times a cell a step, as many as the tile leaves room for.
TEST(ModelConfig, LocalGradientSumsTakeTheMostReadLevelsThatFit) {
    const uint32_t shared = 48 * 1024, invocations = 1024, groups = 132;
    // Issue 13's small hash model (16 levels from 16 cells a side, x1.3, T = 2^12) on a 32-wide MLP:
    // levels of 17^2, 21^2, 28^2, 36^2, ... vertices; its two-part tile takes 30,992 bytes, and the
    // 18,160 left hold 2,270 cells of two 32-bit sums: levels 0-2 (1,514 cells), not level 3.
    ModelConfig small = test::hash_test_config();
    small.encoding.hash = {.levels = 16, .features = 2, .log2_table_size = 12, .base_resolution = 16,
                           .per_level_scale = 1.3f};
    small.hidden_width = 32;
    detail::TrainTiling t = *detail::choose_shared_tile(small, shared, invocations, true);
    ASSERT_EQ(t.shared_bytes, 2u * 112u * 136u + 4u * 4u + 512u);
    t.fixed_point_gradients = true;
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, shared, 1u << 20, groups), 289u + 441u + 784u);
    // 2^16 samples: 496 a workgroup, 1,986 reads a level: 6.9 a cell of level 0, 4.5 of level 1,
    // 2.5 of level 2.
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, shared, 1u << 16, groups), 289u + 441u);
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, shared, 1u << 14, groups), 0u) << "1.7 reads a cell";
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, shared, 1u << 14, groups, 0.0), 1514u) << "every level that fits";
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, 30992u + 2312u, 1u << 20, groups), 289u) << "room for level 0";
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, 30992u + 2311u, 1u << 20, groups), 0u);
    EXPECT_EQ(detail::choose_local_gradient_cells(small, t, shared, 1u << 16, groups, 8.0), 0u) << "6.9 reads";
    // Float atomics have no integer sums; a tile a subgroup declares none.
    detail::TrainTiling floats = t;
    floats.fixed_point_gradients = false;
    EXPECT_EQ(detail::choose_local_gradient_cells(small, floats, shared, 1u << 20, groups), 0u);
    detail::TrainTiling subgroup_tiles = detail::choose_coopmat_tiling(small, shared, invocations, 1u << 20, groups, true);
    subgroup_tiles.fixed_point_gradients = true;
    EXPECT_EQ(detail::choose_local_gradient_cells(small, subgroup_tiles, shared, 1u << 20, groups), 0u);
    // The 64-wide hash model's tile leaves 752 bytes: not even level 0's 2,312.
    detail::TrainTiling wide = *detail::choose_shared_tile(test::hash64_test_config(), shared, invocations, true);
    wide.fixed_point_gradients = true;
    EXPECT_EQ(detail::choose_local_gradient_cells(test::hash64_test_config(), wide, shared, 1u << 20, groups), 0u);
    // The lake model's grid is one group of 27,400 cells, far more than the room left: never.
    const ModelConfig lake = test::default_config(200, 137);
    detail::TrainTiling lake_tile = *detail::choose_shared_tile(lake, shared, invocations, true);
    lake_tile.fixed_point_gradients = true;
    EXPECT_EQ(detail::choose_local_gradient_cells(lake, lake_tile, shared, 1u << 22, groups), 0u);
    // A small grid on the portable kernels: its one group, read often enough.
    const ModelConfig tiny = test::default_config(7, 5);
    detail::TrainTiling portable = detail::choose_tiling(tiny, 32 * 1024, 1024);
    portable.fixed_point_gradients = true;
    EXPECT_EQ(detail::choose_local_gradient_cells(tiny, portable, 32 * 1024, 1u << 14, 64), 35u);
}

// Deferred gradient sums (choose_deferred_gradients): where the tile leaves no room for local sums,
// whole hash levels from the coarsest, those each of the summing pass's workgroups reads at least
// min_hits times a cell a step, as many as its shared memory and the inputs' buffer hold.
TEST(ModelConfig, DeferredGradientSumsTakeTheMostReadLevelsThatFitThePass) {
    const uint32_t shared = 48 * 1024, invocations = 1024, groups = 132, sum_groups = 132;
    const uint64_t cap = 4ull << 30;
    // Issue 13's speed model (16 levels from 16 cells a side, x1.3, T = 2^15, MLP 64x2): levels of
    // 17^2, 21^2, 28^2, 36^2, 46^2, 60^2, 78^2, 101^2 ... vertices. Its tile takes 48,400 bytes: no
    // room for local sums. The pass's 49,152 bytes hold 6,144 cells of two 32-bit sums: levels 0-4
    // (4,926 cells) in a first set, level 5 (3,600) in a second, level 6 (6,084) in a third; level 7
    // (10,201) fits none. Their 14 inputs take 56 bytes a sample.
    ModelConfig large = test::hash64_test_config();
    large.encoding.hash = {.levels = 16, .features = 2, .log2_table_size = 15, .base_resolution = 16,
                           .per_level_scale = 1.3f};
    detail::TrainTiling t = *detail::choose_shared_tile(large, shared, invocations, true);
    ASSERT_EQ(t.shared_bytes, 48400u);
    t.fixed_point_gradients = true;
    ASSERT_EQ(detail::choose_local_gradient_cells(large, t, shared, 1u << 20, groups), 0u) << "no room";
    using Sets = std::vector<std::pair<uint32_t, uint32_t>>; // each set's end group and end cell
    auto deferred = [&](uint32_t batch, uint64_t buffer_cap = 4ull << 30, std::optional<double> hits = {},
                        const KernelOverrides& o = {}) {
        const detail::TrainTiling::Deferred d =
            detail::choose_deferred_gradients(large, t, shared, buffer_cap, batch, sum_groups, hits, o);
        EXPECT_EQ(d.inputs, 2 * d.groups);
        EXPECT_EQ(d.sum_groups, d.groups ? sum_groups : 0u);
        Sets sets;
        for (uint32_t s = 0; d.groups && s < d.sets; ++s) sets.emplace_back(d.set_groups[s], d.set_cells[s]);
        if (d.groups) {
            EXPECT_EQ(sets.back(), std::make_pair(d.groups, d.cells));
        }
        return sets;
    };
    const Sets seven = {{5, 4926}, {6, 8526}, {7, 14610}};
    EXPECT_EQ(deferred(1u << 20), seven);
    // Levels read at least twice a cell by each summing workgroup. 2^16 samples: 496 a workgroup,
    // 1,986 reads a level: 6.9 a cell of level 0, 4.5 of level 1, 2.5 of level 2, 1.5 of level 3.
    EXPECT_EQ(deferred(1u << 16), (Sets{{3, 1514}}));
    EXPECT_EQ(deferred(1u << 17), (Sets{{4, 2810}})) << "3.1 reads a cell of level 3, 1.9 of level 4";
    EXPECT_EQ(deferred(1u << 15), (Sets{{2, 730}})) << "2.3 reads a cell of level 1";
    EXPECT_EQ(deferred(1u << 14), Sets{}) << "1.7 reads a cell of level 0";
    EXPECT_EQ(deferred(1u << 14, cap, 0.0), seven) << "every level that fits a set";
    EXPECT_EQ(deferred(1u << 16, cap, 4.0), (Sets{{2, 730}})) << "4 reads a cell";
    EXPECT_EQ(deferred(1u << 20, 3ull << 22), (Sets{{3, 1514}})) << "a buffer of 6 fp16 inputs";
    KernelOverrides one_set;
    one_set.deferred_sets = 1;
    EXPECT_EQ(deferred(1u << 20, 4ull << 30, {}, one_set), (Sets{{5, 4926}}));
    // Local sums where they fit (the small model's levels 0-2 beside its 32-wide tile); none for
    // an encoding whose one group reads every input (the dense grid).
    ModelConfig small = large;
    small.encoding.hash.log2_table_size = 12;
    small.hidden_width = 32;
    detail::TrainTiling ts = *detail::choose_shared_tile(small, shared, invocations, true);
    ts.fixed_point_gradients = true;
    ts.local_gradient_cells = detail::choose_local_gradient_cells(small, ts, shared, 1u << 20, groups);
    ASSERT_GT(ts.local_gradient_cells, 0u);
    EXPECT_EQ(detail::choose_deferred_gradients(small, ts, shared, cap, 1u << 20, sum_groups).groups, 0u);
    ts.local_gradient_cells = 0;
    EXPECT_GT(detail::choose_deferred_gradients(small, ts, shared, cap, 1u << 20, sum_groups).groups, 0u);
    ModelConfig grid = test::default_config(7, 5);
    detail::TrainTiling tg = detail::choose_tiling(grid, shared, invocations);
    tg.fixed_point_gradients = true;
    EXPECT_EQ(detail::choose_deferred_gradients(grid, tg, shared, cap, 1u << 20, sum_groups, 0.0).groups, 0u);
}

// The tensor-core tiling's kernel options refuse what they cannot use, saying what they take,
// instead of running another configuration than the one asked for.
TEST(ModelConfig, TensorCoreTilingOptionsRefuseBadValues) {
    const ModelConfig lake = test::default_config(200, 137);
    KernelOverrides o;
    for (uint32_t bad : {100u, 0u, 288u}) {
        o.tile = bad;
        try {
            detail::choose_coopmat_tiling(lake, 48 * 1024, 1024, 0, 0, false, o);
            ADD_FAILURE() << "tile " << bad << " was accepted";
        } catch (const EngineError& err) {
            EXPECT_NE(std::string(err.what()).find("multiple of 32"), std::string::npos) << err.what();
        }
    }
    o.tile = 64;
    EXPECT_EQ(detail::choose_coopmat_tiling(lake, 48 * 1024, 1024, 0, 0, false, o).tile, 64u);
    // The shared tiles' cap on their samples: a multiple of 32 from 32 to 1,024.
    o = {};
    for (uint32_t bad : {100u, 0u, 2048u}) {
        o.shared_rows = bad;
        EXPECT_THROW(detail::choose_shared_tile(lake, 48 * 1024, 1024, true, 0, 0, o), EngineError) << bad;
    }
    o.shared_rows = 64;
    const std::optional<detail::TrainTiling> t = detail::choose_shared_tile(lake, 48 * 1024, 1024, true, 0, 0, o);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->shared_tile_rows, 64u);
    o = {};
    o.row_split = 9;
    EXPECT_THROW(detail::choose_shared_tile(lake, 48 * 1024, 1024, true, 0, 0, o), EngineError);
}

TEST(ModelConfig, InitialModelIsDeterministicAndPadded) {
    ModelConfig c = test::default_config();
    Model a = initial_model(c, 42), b = initial_model(c, 42), other = initial_model(c, 43);
    EXPECT_EQ(a.mlp, b.mlp);
    EXPECT_EQ(a.encoding_params, b.encoding_params);
    EXPECT_NE(a.mlp, other.mlp);
    // Padded input columns 13..15 of the first matrix are zero.
    for (uint32_t o = 0; o < c.hidden_width; ++o)
        for (uint32_t i = c.input_width(); i < c.padded_input_width(); ++i)
            EXPECT_EQ(a.mlp[o * c.padded_input_width() + i], 0.0f);
}

} // namespace
} // namespace ff::engine
