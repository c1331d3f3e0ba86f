// Every kernel variant the engine can build, compiled and checked by the SPIR-V validator for
// Vulkan 1.2, on any machine: the tensor-core (cooperative matrix) variants never run on lavapipe,
// so this is where CI sees them. A driver may still reject what validates; the GPU run of the
// engine tests (bench/gpu/run.sh, part "tests") covers that.
#include "fieldflow/engine/engine.hpp"
#include "field/model_layout.hpp"
#include "vulkan/shader_compiler.hpp"
#include "field/gpu_model.hpp"
#include "field/target_image.hpp"
#include "test_support.hpp"
#include "field/training_plan.hpp"
#include "field/tile_memory.hpp"
#include "known_devices.hpp"
#include "encodings/encoding.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

namespace ff::engine {
namespace {

using detail::Defines;

std::string validate(const std::vector<uint32_t>& spirv) {
    spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
    std::string messages;
    tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& at,
                                 const char* text) {
        messages += "word " + std::to_string(at.index) + ": " + text + "\n";
    });
    spvtools::ValidatorOptions options;
    options.SetScalarBlockLayout(true);
    return tools.Validate(spirv.data(), spirv.size(), options) ? "" : messages + "(invalid)";
}

// A training image of `parts` parts of 2^20 words.
detail::TargetImageLayout image_layout(uint32_t parts = 1, bool rgba16 = false) {
    detail::TargetImageLayout layout;
    layout.rgba16 = rgba16;
    layout.parts = parts;
    layout.part_shift = 20;
    return layout;
}

// The training image's defines (target_image.glsl) for `parts` parts of 2^20 words from `binding`.
Defines image(uint32_t binding, uint32_t parts = 1, bool rgba16 = false) {
    Defines d;
    image_layout(parts, rgba16).add_defines(d, binding);
    return d;
}

bool has(const Defines& d, const std::string& key) {
    for (const auto& [k, v] : d)
        if (k == key) return true;
    return false;
}

// The value `key` is defined to in `d`, "(missing)" where it is not defined.
std::string define_value(const Defines& d, const std::string& key) {
    for (const auto& [k, v] : d)
        if (k == key) return v;
    return "(missing)";
}

// A kernel that draws its samples (no EXPLICIT_SAMPLES) in the order the trainer gives it
// (sampling.glsl; the trainer's sampling_defines), unless its request has that order already.
Defines with_sampling(Defines d) {
    if (!has(d, "EXPLICIT_SAMPLES") && !has(d, "SAMPLES_BLOCK_SHIFT"))
        d.push_back({"SAMPLES_BLOCK_SHIFT", "10"});
    return d;
}

// `d` with `changes`: each key's value replaced where `d` defines it, else added.
Defines changed(Defines d, const Defines& changes) {
    for (const auto& [key, value] : changes) {
        auto it = std::find_if(d.begin(), d.end(), [&](const auto& kv) { return kv.first == key; });
        if (it != d.end()) it->second = value;
        else d.push_back({key, value});
    }
    return d;
}

// The optimizer kernel the engine plans for `c` on lavapipe (plan_training), with `changes` to its
// defines: the forms (GRID_ADAM, MLP_FP16_COPY, ...) that other options, models and devices get.
detail::KernelRequest optimizer_request(const ModelConfig& c, const Defines& changes = {}) {
    detail::KernelRequest r = detail::plan_training(test::lavapipe(), c, TrainOptions{}, 64, 48, 8).optimizer;
    r.defines = changed(r.defines, changes);
    return r;
}

detail::CompileResult compile(const detail::KernelRequest& r) {
    return detail::compile_shader(r.shader, with_sampling(r.defines));
}

// The kernel `r` asks for compiles and validates (`where` names it in a failure).
void expect_request_valid(const detail::KernelRequest& r, const std::string& where = "") {
    detail::CompileResult compiled;
    ASSERT_NO_THROW(compiled = compile(r)) << where;
    EXPECT_EQ(validate(compiled.spirv), "") << where;
}

// The training kernel's defines for the variant `extra` names, as the engine's request builder
// writes them (train_kernel_request, for a tiling of the variant's kind: TILE, COOPMAT,
// WEIGHTS_IN_SHARED, CM_SPLIT with CM_ROWS, CM_WEIGHT_FRAGMENTS and the staged parts, the image's parts), with
// `extra`'s values in their place. The training step reads a one-part RGBA8 image unless the
// variant says otherwise.
Defines train_variant_defines(const ModelConfig& config, const Defines& extra) {
    detail::TrainTiling t;
    t.tile = uint32_t(std::stoul(define_value(extra, "TILE")));
    t.coopmat = define_value(extra, "COOPMAT") == "1";
    t.weights_in_shared = define_value(extra, "WEIGHTS_IN_SHARED") != "0";
    if (has(extra, "CM_SPLIT")) {
        t.shared_tile_rows = uint32_t(std::stoul(define_value(extra, "CM_ROWS")));
        t.weight_fragments = t.first_weight_fragments = define_value(extra, "CM_WEIGHT_FRAGMENTS") != "0";
        // The staged parts change the shared layout (tile_memory.hpp), whose defines follow.
        if (has(extra, "CM_ROW_SPLIT")) t.shared_tile_parts = uint32_t(std::stoul(define_value(extra, "CM_ROW_SPLIT")));
        t.ends_by_columns = define_value(extra, "CM_ENDS_BY_COLUMNS") == "1";
        t.stage_inputs = define_value(extra, "CM_STAGE_INPUTS") == "1";
        t.late_encoding = define_value(extra, "CM_LATE_ENCODING") == "1";
        t.stage_targets = define_value(extra, "CM_STAGE_TARGETS") == "1";
    }
    const uint32_t parts = has(extra, "IMAGE_PARTS") ? uint32_t(std::stoul(define_value(extra, "IMAGE_PARTS"))) : 1u;
    const detail::TargetImageLayout layout = image_layout(parts, has(extra, "IMAGE_RGBA16"));
    return changed(detail::train_kernel_request(config, t, has(extra, "EXPLICIT_SAMPLES"), layout).defines, extra);
}

void expect_valid(const std::string& shader, const ModelConfig& config, const Defines& extra) {
    Defines d;
    if (shader == "train_step.comp") {
        d = train_variant_defines(config, extra);
    } else {
        d = detail::model_defines(config);
        d.insert(d.end(), extra.begin(), extra.end());
    }
    d = with_sampling(d);
    std::string where = shader;
    for (const auto& [k, v] : extra) where += " " + k + "=" + v;
    detail::CompileResult r;
    ASSERT_NO_THROW(r = detail::compile_shader(shader, d)) << where;
    EXPECT_EQ(validate(r.spirv), "") << where;
}

std::vector<ModelConfig> configs() {
    ModelConfig lake = test::default_config(200, 137);
    ModelConfig wide = lake;
    wide.hidden_width = 64;
    ModelConfig widest = lake;
    widest.hidden_width = 128;
    ModelConfig hash = test::hash_test_config();
    hash.hidden_width = 64;
    return {lake, wide, widest, hash, test::alternate_config(), test::siren_test_config()};
}

TEST(ShaderVariants, TrainingKernelsValidate) {
    for (const ModelConfig& c : configs())
        for (const char* coopmat : {"0", "1"})
            for (const char* tile : {"32", "64", "128"})
                for (const char* shared : {"0", "1"}) {
                    Defines d = {{"TILE", tile}, {"WEIGHTS_IN_SHARED", shared}, {"COOPMAT", coopmat}};
                    // The tensor-core kernels then read the fp16 weights from a buffer after the image's.
                    if (std::string(coopmat) == "1" && std::string(shared) == "0") d.push_back({"CM_WEIGHTS_BINDING", "7"});
                    expect_valid("train_step.comp", c, d);
                }
    // Three subgroups a workgroup (the tensor-core tiles of width 64 and the hash model).
    for (const ModelConfig& c : configs())
        expect_valid("train_step.comp", c,
                     {{"TILE", "96"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"}});
    // Shared memory in explicit-layout blocks (devices with VK_KHR_workgroup_memory_explicit_layout),
    // weights in shared memory or not.
    for (const ModelConfig& c : configs()) {
        expect_valid("train_step.comp", c,
                     {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", "1"}, {"CM_SHARED_BLOCKS", "1"}});
        expect_valid("train_step.comp", c,
                     {{"TILE", "64"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_SHARED_BLOCKS", "1"}, {"CM_GRADS_IN_REGISTERS", "0"}});
    }
    // Small MLPs holding their weight blocks in registers for the step (lake, the alternate model,
    // the SIREN test model), with and without explicit shared layouts, with and without their bias
    // rows.
    for (size_t c : {0u, 4u, 5u})
        for (const char* blocks : {"0", "1"})
            for (const char* bias : {"0", "1"})
                expect_valid("train_step.comp", configs()[c],
                             {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", "1"}, {"CM_WEIGHT_FRAGMENTS", "1"},
                              {"CM_SHARED_BLOCKS", blocks}, {"CM_BIAS_FRAGMENTS", bias}});
    // The same blocks loaded from the fp16 copy in memory, six subgroups' tiles in shared memory.
    for (size_t c : {0u, 4u, 5u})
        expect_valid("train_step.comp", configs()[c],
                     {{"TILE", "192"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_WEIGHT_FRAGMENTS", "1"}, {"CM_SHARED_BLOCKS", "1"}, {"CM_BIAS_FRAGMENTS", "0"}});
    // Wide ReLU MLPs training on one tile a workgroup shared by its subgroups, which holds its
    // weight blocks (width 64: the dense grid's and the hash model's, the first matrix's blocks held
    // or not; width 128 on 64 samples).
    for (size_t c : {1u, 3u})
        for (const char* first : {"0", "1"})
            expect_valid("train_step.comp", configs()[c],
                         {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                          {"CM_SPLIT", "1"}, {"CM_ROWS", "128"}, {"CM_SHARED_BLOCKS", "1"},
                          {"CM_WEIGHT_FRAGMENTS", "1"}, {"CM_FIRST_WEIGHT_FRAGMENTS", first}});
    // Width 128 in two parts (16 subgroups).
    expect_valid("train_step.comp", configs()[2],
                 {{"TILE", "512"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                  {"CM_SPLIT", "1"}, {"CM_ROWS", "64"}, {"CM_ROW_SPLIT", "2"}, {"CM_SHARED_BLOCKS", "1"},
                  {"CM_WEIGHT_FRAGMENTS", "1"}, {"CM_ENDS_BY_COLUMNS", "1"}});
    for (const char* ends : {"0", "1"})
        expect_valid("train_step.comp", configs()[2],
                     {{"TILE", "256"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_SPLIT", "1"}, {"CM_ROWS", "64"}, {"CM_SHARED_BLOCKS", "1"}, {"CM_WEIGHT_FRAGMENTS", "1"},
                      {"CM_ENDS_BY_COLUMNS", ends}});
    // The ends by columns where the defaults take them by rows: held blocks, two parts.
    for (size_t c : {1u, 3u})
        expect_valid("train_step.comp", configs()[c],
                     {{"TILE", "256"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_SPLIT", "1"}, {"CM_ROWS", "128"}, {"CM_ROW_SPLIT", "2"}, {"CM_SHARED_BLOCKS", "1"},
                      {"CM_WEIGHT_FRAGMENTS", "1"}, {"CM_ENDS_BY_COLUMNS", "1"}});
    // One hidden layer (no middle) and three (a middle of two matrices).
    for (uint32_t layers : {1u, 3u}) {
        ModelConfig c = configs()[1];
        c.hidden_layers = layers;
        expect_valid("train_step.comp", c,
                     {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_SPLIT", "1"}, {"CM_ROWS", "128"}, {"CM_SHARED_BLOCKS", "1"}, {"CM_WEIGHT_FRAGMENTS", "1"}});
    }
    // The narrow ends in 8-wide blocks (devices with the 16x8 shapes): the lake model in two parts
    // (8-wide inputs and outputs), width 64 and the hash model (outputs only), the first matrix's
    // blocks held or not.
    for (size_t c : {0u, 1u, 3u})
        for (const char* first : {"0", "1"}) {
            const std::string tile = c == 0 ? "128" : "256";
            expect_valid("train_step.comp", configs()[c],
                         {{"TILE", tile}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                          {"CM_SPLIT", "1"}, {"CM_ROWS", "128"}, {"CM_ROW_SPLIT", "2"}, {"CM_SHARED_BLOCKS", "1"},
                          {"CM_WEIGHT_FRAGMENTS", "1"}, {"CM_FIRST_WEIGHT_FRAGMENTS", first}, {"CM_NARROW_ENDS", "1"}});
        }
    // Width 128 with its ends by columns: only the last matrix's forward product narrow; its
    // encoding's input gradients by rows or by columns (the engine takes columns with its late
    // encoding pass, below).
    for (const char* rows : {"0", "1"})
        expect_valid("train_step.comp", configs()[2],
                     {{"TILE", "256"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_SPLIT", "1"}, {"CM_ROWS", "64"}, {"CM_SHARED_BLOCKS", "1"}, {"CM_WEIGHT_FRAGMENTS", "1"},
                      {"CM_ENDS_BY_COLUMNS", "1"}, {"CM_NARROW_ENDS", "1"}, {"CM_ENC_INPUTS_BY_ROWS", rows}});
    // ... with the next tile's inputs staged and the encoding's backward pass late (the engine's
    // form), staged alone too, on the dense grid and on a hash grid (its 32 inputs' gradients,
    // local sums of its coarse cells).
    ModelConfig widest_hash = configs()[3];
    widest_hash.hidden_width = 128;
    for (const ModelConfig& c : {configs()[2], widest_hash})
        for (const char* late : {"1", "0"})
            for (const char* rows : {"0", "1"})
                for (const char* local : {"0", "35"})
                    expect_valid("train_step.comp", c,
                                 {{"TILE", "256"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                                  {"CM_SPLIT", "1"}, {"CM_ROWS", "64"}, {"CM_SHARED_BLOCKS", "1"},
                                  {"CM_WEIGHT_FRAGMENTS", "1"}, {"CM_ENDS_BY_COLUMNS", "1"}, {"CM_NARROW_ENDS", "1"},
                                  {"CM_ENC_INPUTS_BY_ROWS", rows}, {"CM_STAGE_INPUTS", "1"},
                                  {"CM_LATE_ENCODING", late}, {"ENC_GRAD_FIXED", "1"}, {"ENC_LOCAL_CELLS", local}});
    // Width 128 of one hidden layer (128-sample tiles: staged, not late) and of three, as the
    // engine chooses them.
    for (uint32_t layers : {1u, 3u}) {
        ModelConfig c = configs()[2];
        c.hidden_layers = layers;
        const detail::TrainTiling t = *detail::choose_shared_tile(c, 48 * 1024, 1024, true);
        EXPECT_TRUE(t.stage_inputs) << layers << " layers";
        const detail::CompileResult compiled = compile(detail::train_kernel_request(c, t, false, {}));
        EXPECT_EQ(validate(compiled.spirv), "") << layers << " layers";
    }
    // Two subgroups a column block, each taking half the tile's rows.
    for (size_t c : {1u, 3u})
        expect_valid("train_step.comp", configs()[c],
                     {{"TILE", "256"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                      {"CM_SPLIT", "1"}, {"CM_ROWS", "128"}, {"CM_ROW_SPLIT", "2"}, {"CM_SHARED_BLOCKS", "1"},
                      {"CM_WEIGHT_FRAGMENTS", "1"}});
    expect_valid("train_step.comp", configs()[2],
                 {{"TILE", "512"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                  {"CM_SPLIT", "1"}, {"CM_ROWS", "64"}, {"CM_ROW_SPLIT", "2"}, {"CM_SHARED_BLOCKS", "1"},
                  {"CM_WEIGHT_FRAGMENTS", "1"}});
    expect_valid("train_step.comp", configs()[1],
                 {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "0"}, {"COOPMAT", "1"}, {"CM_WEIGHTS_BINDING", "7"},
                  {"CM_SPLIT", "1"}, {"CM_ROWS", "128"}, {"CM_SHARED_BLOCKS", "1"}, {"CM_PREFETCH", "0"}});
    // The tensor-core step keeping its gradient sums in its partial row (wide MLPs) instead of
    // registers (the default above).
    for (const ModelConfig& c : configs())
        expect_valid("train_step.comp", c,
                     {{"TILE", "64"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", "1"}, {"CM_GRADS_IN_REGISTERS", "0"}});
    // 8- and 16-bit training targets (deep sources) in one or several parts, and the tests'
    // explicit samples, on both paths.
    for (const char* coopmat : {"0", "1"}) {
        for (bool rgba16 : {false, true})
            for (uint32_t parts : {1u, 3u, 8u}) {
                Defines d = image(6, parts, rgba16);
                d.insert(d.end(), {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", coopmat}});
                expect_valid("train_step.comp", configs()[0], d);
            }
        expect_valid("train_step.comp", configs()[3],
                     {{"TILE", "64"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", coopmat}, {"EXPLICIT_SAMPLES", "1"}});
        // The tensor-core step loading each tile as it comes rather than a tile ahead (a measurement).
        if (std::string(coopmat) == "1")
            for (size_t c : {0u, 3u})
                expect_valid("train_step.comp", configs()[c],
                             {{"TILE", "128"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", "1"}, {"CM_PREFETCH", "0"}});
    }
}

// The fixed-point gradient forms (ENC_GRAD_FIXED, on devices with 64-bit integer atomics): the
// training step on both paths, and the optimizer's three forms that
// read the sums back, for every configuration (odd and even features a cell, hash levels, no cells).
TEST(ShaderVariants, FixedPointGradientKernelsValidate) {
    for (const ModelConfig& c : configs()) {
        for (const char* coopmat : {"0", "1"})
            expect_valid("train_step.comp", c,
                         {{"TILE", "64"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", coopmat}, {"ENC_GRAD_FIXED", "1"}});
        for (const char* form : {"0", "1", "2"})
            expect_request_valid(optimizer_request(c, {{"GRID_ADAM", form}, {"ENC_GRAD_FIXED", "1"}}));
    }
}

// Local gradient sums (ENC_LOCAL_CELLS) in the kernels that declare them: the portable step and
// the shared-tile one (its sums in the explicit layout's block), on encodings of 2 and 3 features
// a cell (a hash grid's pairs; the grid's pair and odd feature).
TEST(ShaderVariants, LocalGradientSumKernelsValidate) {
    ModelConfig small_grid = test::default_config(7, 5);
    small_grid.hidden_width = 32;
    ModelConfig hash = test::hash_test_config();
    hash.hidden_width = 32;
    for (const ModelConfig& c : {small_grid, hash, test::hash64_test_config()}) {
        expect_valid("train_step.comp", c,
                     {{"TILE", "64"}, {"WEIGHTS_IN_SHARED", "1"}, {"COOPMAT", "0"}, {"ENC_GRAD_FIXED", "1"},
                      {"ENC_LOCAL_CELLS", "35"}});
        detail::TrainTiling t = *detail::choose_shared_tile(c, 64 * 1024, 1024, true);
        t.fixed_point_gradients = true;
        t.local_gradient_cells = 35;
        for (bool explicit_samples : {true, false}) {
            detail::KernelRequest r = detail::train_kernel_request(c, t, explicit_samples, {});
            expect_request_valid(r, "shared tile");
        }
    }
}

// The shared tiles in three parts, and those whose ends are by columns (width 128), train without
// loading the next tile ahead; in two, and a tile a subgroup, with it (train_step.comp's
// CM_PREFETCH).
TEST(ShaderVariants, ThreePartTilesTrainWithoutPrefetch) {
    const ModelConfig lake = test::default_config(200, 137);
    const uint32_t many = 32 * 192 * 132;
    detail::TrainTiling three = *detail::choose_shared_tile(lake, 48 * 1024, 1024, true, many, 132);
    ASSERT_EQ(three.shared_tile_parts, 3u);
    EXPECT_EQ(define_value(detail::train_kernel_request(lake, three, false, {}).defines, "CM_PREFETCH"), "0");
    expect_request_valid(detail::train_kernel_request(lake, three, false, {}));
    detail::TrainTiling two = *detail::choose_shared_tile(lake, 48 * 1024, 1024, true, many - 1, 132);
    ASSERT_EQ(two.shared_tile_parts, 2u);
    EXPECT_EQ(define_value(detail::train_kernel_request(lake, two, false, {}).defines, "CM_PREFETCH"), "1");
    ModelConfig widest = lake;
    widest.hidden_width = 128;
    detail::TrainTiling columns = *detail::choose_shared_tile(widest, 48 * 1024, 1024, true, many, 132);
    ASSERT_TRUE(columns.ends_by_columns);
    EXPECT_EQ(define_value(detail::train_kernel_request(widest, columns, false, {}).defines, "CM_PREFETCH"), "0");
}

// Deferred gradient sums (ENC_DEFERRED_GROUPS): the step's three kernel bodies writing the deferred
// inputs (portable, a tile a subgroup, shared tiles) and the summing pass in two sets, on hash
// grids of 1, 2 and 4 features a cell, with drawn and with explicit samples.
TEST(ShaderVariants, DeferredGradientSumKernelsValidate) {
    ModelConfig hash = test::hash_test_config();
    hash.hidden_width = 32;
    ModelConfig single = hash;
    single.encoding.hash.features = 1;
    ModelConfig wide = test::hash64_test_config();
    wide.encoding.hash.features = 4;
    for (const ModelConfig& c : {hash, single, wide}) {
        detail::TrainTiling portable = detail::choose_tiling(c, 48 * 1024, 1024);
        detail::TrainTiling subgroups = detail::choose_coopmat_tiling(c, 48 * 1024, 1024, 0, 0, true);
        detail::TrainTiling shared_tile = *detail::choose_shared_tile(c, 64 * 1024, 1024, true);
        for (detail::TrainTiling* t : {&portable, &subgroups, &shared_tile}) {
            t->fixed_point_gradients = true;
            // Level 0 (dense, 17^2 vertices) in a set, level 1 (hashed: the table's 1,024 rows) in another.
            t->deferred = {.groups = 2, .cells = 289 + 1024, .inputs = 2 * c.encoding.hash.features, .sum_groups = 8,
                           .sets = 2, .set_groups = {1, 2}, .set_cells = {289, 289 + 1024}};
            for (bool explicit_samples : {true, false}) {
                for (const detail::KernelRequest& r : {detail::train_kernel_request(c, *t, explicit_samples, {}),
                                                       detail::deferred_sums_kernel_request(c, *t, explicit_samples)}) {
                    SCOPED_TRACE(r.shader + (explicit_samples ? ", explicit samples" : ""));
                    expect_request_valid(r);
                }
            }
        }
    }
}

// Where the tensor-core step keeps its gradient sums: registers up to 28 accumulator fragments (the
// hash model's 32 inputs into 64 x 2: 8 + 16 + 4), the subgroup's partial row beyond (width 128).
TEST(ShaderVariants, GradientSumsStayInRegistersUpTo28Fragments) {
    auto in_registers = [](const ModelConfig& c) {
        const detail::TrainTiling tiling = detail::choose_coopmat_tiling(c, 48 * 1024, 1024);
        for (const auto& [k, v] : detail::train_kernel_request(c, tiling, true, {}).defines)
            if (k == "CM_GRADS_IN_REGISTERS") return v == "1";
        ADD_FAILURE() << "no CM_GRADS_IN_REGISTERS define";
        return false;
    };
    ModelConfig hash = test::hash64_test_config();
    EXPECT_TRUE(in_registers(hash));
    hash.encoding.hash.levels = 24; // 48 inputs: 12 + 16 + 4 fragments
    EXPECT_FALSE(in_registers(hash));
    ModelConfig widest = test::default_config(200, 137);
    widest.hidden_width = 128;
    EXPECT_FALSE(in_registers(widest));
    EXPECT_TRUE(in_registers(test::default_config(200, 137)));
}

// Width 128's targets fetched by its staging subgroups (CM_STAGE_TARGETS) from each source a
// sample's target has: explicit samples' floats, an RGBA8 image's word, an RGBA16 image's two;
// from an image with its pixels drawn a tile ahead, staged as column and row (SAMPLES_XY16) or as
// index.
TEST(ShaderVariants, StagedTargetsCompileInEverySampleForm) {
    ModelConfig c = test::default_config(200, 137);
    c.hidden_width = 128;
    const detail::TrainTiling tiling = detail::choose_shared_tile(c, 48 * 1024, 1024, true).value();
    ASSERT_TRUE(tiling.stage_targets);
    const char* forms[] = {"explicit samples", "RGBA8", "RGBA16", "RGBA8, pixels staged by index (no SAMPLES_XY16)"};
    for (int form = 0; form < 4; ++form) {
        SCOPED_TRACE(forms[form]);
        detail::TargetImageLayout image;
        image.rgba16 = form == 2;
        image.words = 1000;
        detail::KernelRequest r = detail::train_kernel_request(c, tiling, form == 0, image);
        EXPECT_EQ(define_value(r.defines, "CM_STAGE_TARGETS"), "1");
        EXPECT_EQ(define_value(r.defines, "CM_ENDS_BY_COLUMNS"), "1");
        if (form != 3) r.defines.push_back({"SAMPLES_XY16", "1"}); // sampling_defines: a 200x137 image
        expect_request_valid(r);
    }
}

// The MLP's ends by columns in every shape GpuGradients.SharedTilesOfEveryShapeMatchReference
// trains (widths 16 and 32, one part and two; explicit samples), with the defaults that follow
// from them (mlp_coopmat_split.glsl: two chains, a subgroup's own blocks).
TEST(ShaderVariants, EndsByColumnsCompileAtEveryWidth) {
    KernelOverrides o;
    o.shared_tile = o.ends_by_columns = true;
    for (uint32_t width : {16u, 32u})
        for (uint32_t parts : {1u, 2u}) {
            SCOPED_TRACE("width " + std::to_string(width) + ", parts " + std::to_string(parts));
            o.row_split = parts;
            ModelConfig c = test::default_config(200, 137);
            c.hidden_width = width;
            const std::optional<detail::TrainTiling> tiling =
                detail::choose_shared_tile(c, 48 * 1024, 1024, true, 0, 0, o);
            ASSERT_TRUE(tiling && tiling->ends_by_columns);
            expect_request_valid(detail::train_kernel_request(c, *tiling, true, {}));
        }
}

// Width 128's ends by columns with the 16x8 shapes keep the bias sums in an 8-column fragment
// (mlp_coopmat_split.glsl), without them in a 16-column one: both compile and validate and differ.
TEST(ShaderVariants, Width128BiasSumsAreNarrowWithTheNarrowShapes) {
    ModelConfig c = test::default_config(200, 137);
    c.hidden_width = 128;
    detail::TrainTiling tiling = detail::choose_shared_tile(c, 48 * 1024, 1024, true, 1u << 20, 132).value();
    ASSERT_TRUE(tiling.ends_by_columns);
    tiling.narrow_ends = true;
    const std::vector<uint32_t> narrow = compile(detail::train_kernel_request(c, tiling, false, {})).spirv;
    EXPECT_EQ(validate(narrow), "");
    tiling.narrow_ends = false;
    const std::vector<uint32_t> wide = compile(detail::train_kernel_request(c, tiling, false, {})).spirv;
    EXPECT_EQ(validate(wide), "");
    EXPECT_NE(narrow, wide);
}

// The training kernel's request for an MLP whose weights are read from memory names the binding
// of the fp16 copy after its other buffers, and compiles without a shared copy of the weights.
TEST(ShaderVariants, WeightsInMemoryRequestBindsTheFp16Copy) {
    ModelConfig c = test::default_config(200, 137);
    c.hidden_width = 128;
    const detail::TrainTiling tiling = detail::choose_coopmat_tiling(c, 48 * 1024, 1024);
    ASSERT_TRUE(tiling.weights_in_memory());
    for (bool explicit_samples : {true, false}) {
        const detail::KernelRequest r = detail::train_kernel_request(c, tiling, explicit_samples, {});
        const uint32_t image_bindings = explicit_samples ? 9 : 7; // uv, target, output / one image part
        EXPECT_EQ(r.bindings, image_bindings + 1);
        EXPECT_TRUE(has(r.defines, "CM_WEIGHTS_BINDING"));
        for (const auto& [k, v] : r.defines) {
            if (k == "CM_WEIGHTS_BINDING") {
                EXPECT_EQ(v, std::to_string(image_bindings));
            }
            if (k == "WEIGHTS_IN_SHARED") {
                EXPECT_EQ(v, "0");
            }
        }
        expect_request_valid(r);
    }
}

TEST(ShaderVariants, RenderAndOptimizerKernelsValidate) {
    for (const ModelConfig& c : configs()) {
        // The render kernels the engine builds on lavapipe and on an H100, with and without
        // explicit workgroup layouts, weights in shared memory or read from the fp16 copy.
        expect_request_valid(detail::render_kernel_request(test::lavapipe(), c, {}), "render, lavapipe");
        detail::DeviceFeatures no_blocks = test::nvidia_h100();
        no_blocks.shared_blocks = false;
        KernelOverrides tile64;
        tile64.tile = 64;
        tile64.weights_in_shared = true;
        KernelOverrides in_memory;
        in_memory.tile = 32;
        in_memory.weights_in_shared = false;
        for (const detail::DeviceFeatures& device : {test::nvidia_h100(), no_blocks})
            for (const KernelOverrides& o : {tile64, in_memory})
                expect_request_valid(detail::render_kernel_request(device, c, o), "render, tensor cores");
        for (const char* form : {"0", "1", "2"}) expect_request_valid(optimizer_request(c, {{"GRID_ADAM", form}}));
        expect_request_valid(optimizer_request(c, {{"GRID_ADAM", "2"}, {"MLP_FP16_COPY", "1"}}));
        expect_valid("encoding_settle.comp", c, {});
    }
    for (bool rgba16 : {false, true})
        for (uint32_t parts : {1u, 2u, 8u}) expect_valid("squared_error.comp", configs()[0], image(2, parts, rgba16));
}

} // namespace
} // namespace ff::engine

namespace ff::engine {
namespace {

// The bytes of workgroup (shared) memory a SPIR-V module declares: explicitly laid-out blocks
// (VK_KHR_workgroup_memory_explicit_layout) alias one another, so they take the largest's size
// (from their members' Offset decorations); plain shared variables take their types' sizes.
uint64_t workgroup_bytes(const std::vector<uint32_t>& spirv) {
    enum : uint32_t { kInt = 21, kFloat = 22, kVector = 23, kArray = 28, kStruct = 30, kPointer = 32,
                      kConstant = 43, kVariable = 59, kDecorate = 71, kMemberDecorate = 72 };
    constexpr uint32_t kWorkgroup = 4, kOffset = 35, kBlock = 2, kArrayStride = 6;
    std::map<uint32_t, uint64_t> scalar_bytes, constants, vector_count, vector_of, array_of, array_length, stride;
    std::map<uint32_t, std::vector<uint32_t>> members;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> member_offset;
    std::map<uint32_t, uint32_t> pointee;
    std::set<uint32_t> blocks;
    std::vector<uint32_t> variables;
    for (size_t at = 5; at < spirv.size();) {
        const uint32_t count = spirv[at] >> 16, op = spirv[at] & 0xffff;
        const uint32_t* w = &spirv[at];
        if (op == kInt || op == kFloat) scalar_bytes[w[1]] = w[2] / 8;
        else if (op == kVector) vector_of[w[1]] = w[2], vector_count[w[1]] = w[3];
        else if (op == kArray) array_of[w[1]] = w[2], array_length[w[1]] = w[3];
        else if (op == kStruct) members[w[1]].assign(w + 2, w + count);
        else if (op == kPointer && w[2] == kWorkgroup) pointee[w[1]] = w[3];
        else if (op == kConstant) constants[w[2]] = w[3];
        else if (op == kVariable && w[3] == kWorkgroup) variables.push_back(w[2]);
        else if (op == kDecorate && w[2] == kBlock) blocks.insert(w[1]);
        else if (op == kDecorate && w[2] == kArrayStride) stride[w[1]] = w[3];
        else if (op == kMemberDecorate && w[3] == kOffset) member_offset[{w[1], w[2]}] = w[4];
        at += count ? count : 1;
    }
    std::function<uint64_t(uint32_t)> size = [&](uint32_t type) -> uint64_t {
        if (scalar_bytes.count(type)) return scalar_bytes[type];
        if (vector_of.count(type)) return vector_count[type] * size(uint32_t(vector_of[type]));
        if (array_of.count(type))
            return constants[uint32_t(array_length[type])] *
                   (stride.count(type) ? stride[type] : size(uint32_t(array_of[type])));
        uint64_t end = 0, sum = 0;
        for (uint32_t m = 0; m < members[type].size(); ++m) {
            const uint64_t bytes = size(members[type][m]);
            end = std::max(end, member_offset[{type, m}] + bytes);
            sum += bytes;
        }
        return blocks.count(type) ? end : sum;
    };
    // Each variable's pointer type: found from its OpVariable's result type.
    std::map<uint32_t, uint32_t> variable_type;
    for (size_t at = 5; at < spirv.size();) {
        const uint32_t count = spirv[at] >> 16, op = spirv[at] & 0xffff;
        if (op == kVariable && spirv[at + 3] == kWorkgroup) variable_type[spirv[at + 2]] = spirv[at + 1];
        at += count ? count : 1;
    }
    uint64_t aliased = 0, plain = 0;
    for (uint32_t v : variables) {
        const uint32_t type = pointee[variable_type[v]];
        if (blocks.count(type)) aliased = std::max(aliased, size(type));
        else plain += size(type);
    }
    return aliased + plain;
}

// The portable training step's memory as tile_memory.hpp works it out (which choose_tiling counts
// and whose sizes the request passes to train_step_portable.glsl) is what the kernel declares, with
// the local gradient sums after it: the shipped MLPs on lavapipe, weights in shared memory or not.
TEST(ShaderVariants, PortableTileMemoryIsWhatTheLayoutSays) {
    const detail::DeviceFeatures cpu = test::lavapipe();
    ModelConfig lake = test::default_config(187, 140), small = test::default_config(24, 18), wide = lake;
    wide.hidden_width = 128;
    std::set<std::string> weights_seen;
    for (const ModelConfig& c : {lake, small, wide, test::hash64_test_config(), test::siren_test_config()})
        for (uint32_t batch : {1u << 12, 1u << 18}) {
            TrainOptions o;
            o.batch = batch;
            const detail::TrainingPlan plan = detail::plan_training(cpu, c, o, 751, 563, 8);
            const detail::TrainTiling& t = plan.tiling;
            ASSERT_FALSE(t.coopmat);
            SCOPED_TRACE("width " + std::to_string(c.hidden_width) + ", batch " + std::to_string(batch));
            const uint64_t local = uint64_t(t.local_gradient_cells) * 4 * detail::encoding_of(c).cell_features(c);
            const uint64_t declared = workgroup_bytes(detail::compile_shader(plan.train.shader, plan.train.defines).spirv);
            EXPECT_EQ(declared, detail::portable_tile_layout(c, t.tile, t.weights_in_shared).bytes() + local);
            EXPECT_EQ(t.shared_bytes, detail::portable_tile_layout(c, t.tile, t.weights_in_shared).bytes());
            weights_seen.insert(t.weights_in_shared ? "shared" : "memory");
        }
    EXPECT_EQ(weights_seen.size(), 2u) << "both places of the weights";
}

// A tile a subgroup's memory as tile_memory.hpp works it out (which choose_coopmat_tiling counts
// and whose sizes the requests pass to mlp_coopmat.glsl) is what the kernel declares: training
// (width 16, SIRENs) and rendering (every model) on the H100, weights in shared memory or not.
TEST(ShaderVariants, SubgroupTileMemoryIsWhatTheLayoutSays) {
    const detail::DeviceFeatures h100 = test::nvidia_h100();
    ModelConfig lake16 = test::default_config(187, 140), lake128 = lake16;
    lake16.hidden_width = 16;
    lake128.hidden_width = 128;
    int checked = 0;
    for (const ModelConfig& c : {lake16, lake128, test::hash64_test_config(), test::siren_test_config()})
        for (uint32_t batch : {1u << 14, 1u << 20}) {
            TrainOptions o;
            o.batch = batch;
            const detail::TrainingPlan plan = detail::plan_training(h100, c, o, 751, 563, 8);
            for (const detail::KernelRequest* r : {&plan.train, &plan.render}) {
                if (define_value(r->defines, "COOPMAT") != "1" && r->shader != "render_coopmat.comp") continue;
                if (has(r->defines, "CM_SPLIT")) continue;
                SCOPED_TRACE(r->shader + ", width " + std::to_string(c.hidden_width) + ", batch " + std::to_string(batch));
                const detail::SubgroupTileLayout layout = detail::subgroup_tile_layout(
                    c, uint32_t(std::stoul(define_value(r->defines, "TILE"))) / 32,
                    define_value(r->defines, "WEIGHTS_IN_SHARED") == "1", define_value(r->defines, "CM_SHARED_BLOCKS") == "1");
                EXPECT_EQ(workgroup_bytes(detail::compile_shader(r->shader, r->defines).spirv), layout.bytes());
                ++checked;
            }
        }
    EXPECT_GE(checked, 10);
}

// The shared tile's memory as tile_memory.hpp works it out (which the tile chooser counts
// and whose sizes the kernel request passes to the shader) is what the kernel declares, for every
// shared tile the H100/H200 gets for the shipped MLPs and every source of its targets: RGBA8 and
// RGBA16 images and the engine tests' explicit samples. The tiling's count, which decides which
// tile fits and whether the staged parts fit beside it, is the most of those.
TEST(ShaderVariants, SharedTileMemoryIsWhatTheLayoutSays) {
    const detail::DeviceFeatures h100 = test::nvidia_h100();
    const ModelConfig bases[] = {test::default_config(187, 140), test::hash64_test_config()};
    struct Source {
        uint32_t bits;
        bool explicit_samples;
        detail::TargetSource layout;
    };
    const Source sources[] = {{8, false, detail::TargetSource::image_rgba8},
                              {16, false, detail::TargetSource::image_rgba16},
                              {8, true, detail::TargetSource::explicit_samples}};
    for (uint32_t width : {32u, 64u, 128u})
        for (int e = 0; e < 2; ++e)
            for (uint32_t batch : {1u << 14, 1u << 20, 1u << 22})
                for (const Source& source : sources) {
                    ModelConfig c = bases[e];
                    c.hidden_width = width;
                    TrainOptions o;
                    o.batch = batch;
                    const detail::TrainingPlan plan = detail::plan_training(h100, c, o, 751, 563, source.bits);
                    const detail::TrainTiling& t = plan.tiling;
                    ASSERT_TRUE(t.shared_tile_rows) << "width " << width;
                    SCOPED_TRACE("width " + std::to_string(width) + (e ? ", hash grid" : ", dense grid") + ", batch " +
                                 std::to_string(batch) + ", " +
                                 (source.explicit_samples ? std::string("explicit samples")
                                                          : std::to_string(source.bits) + "-bit image"));
                    const detail::KernelRequest request =
                        source.explicit_samples ? detail::train_kernel_request(c, t, true, {}) : plan.train;
                    const uint64_t local = uint64_t(t.local_gradient_cells) * 4 * detail::encoding_of(c).cell_features(c);
                    const detail::SharedTileLayout layout =
                        detail::shared_tile_layout(c, t.shared_tile_rows, t.tile / 32, t.stage_inputs,
                                                   t.late_encoding, t.stage_targets, source.layout);
                    const uint64_t declared = workgroup_bytes(detail::compile_shader(request.shader, request.defines).spirv);
                    EXPECT_EQ(declared, layout.bytes() + local);
                    EXPECT_LE(layout.bytes(), t.shared_bytes);
                    EXPECT_LE(declared, h100.max_shared);
                }
}

} // namespace
} // namespace ff::engine
