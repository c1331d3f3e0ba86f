// The GPU kernels against the double-precision CPU reference, on fresh random inputs:
// forward (render and the fused kernel's outputs) to 1e-4, every gradient to 1e-3 relative.
#include "cpu_reference.hpp"
#include "field/encoding_state.hpp"
#include "fieldflow/engine/testing.hpp"
#include "test_support.hpp"

#include <bit>
#include <cmath>
#include <optional>
#include <utility>
#include <random>

namespace ff::engine {
namespace {

// Relative error of a gradient group: the worst element difference over the group's largest
// magnitude, and the L2 norm of the difference over the L2 norm of the reference.
struct GroupError {
    double max_rel = 0, norm_rel = 0;
};

GroupError group_error(const std::vector<float>& gpu, const std::vector<double>& ref, size_t begin,
                       size_t end) {
    double max_ref = 0, max_diff = 0, diff2 = 0, ref2 = 0;
    for (size_t i = begin; i < end; ++i) {
        double d = double(gpu[i]) - ref[i];
        max_ref = std::max(max_ref, std::abs(ref[i]));
        max_diff = std::max(max_diff, std::abs(d));
        diff2 += d * d;
        ref2 += ref[i] * ref[i];
    }
    GroupError e;
    e.max_rel = max_ref > 0 ? max_diff / max_ref : max_diff;
    e.norm_rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    return e;
}

// The forward tolerance for a model: fp16 activations (tensor-core path) round each layer's sums, whose
// error grows with the square root of the terms summed, so MLPs wider than 32 get that much more.
double forward_tolerance(const ModelConfig& config) {
    return test::tolerances().forward * std::sqrt(std::max(1.0, config.hidden_width / 32.0));
}

// Samples in runs of `run` that lie within 1e-3 of each other (most of a run in the same encoding
// cells): neighbouring invocations send their atomics to the same addresses at once.
void cluster(test::Samples& s, uint32_t run) {
    for (size_t i = 1; i < s.uv.size() / 2; ++i) {
        if (i % run == 0) continue;
        s.uv[2 * i] = std::min(1.0f, s.uv[2 * i - 2] + 2e-4f);
        s.uv[2 * i + 1] = std::min(1.0f, s.uv[2 * i - 1] + 1e-4f);
    }
}

// max_groups > 0 caps the training kernel's workgroups, so each one accumulates several tiles;
// run > 1 draws the samples in runs of neighbours (cluster); `device` replaces the tests' own.
// sums: testing::forward_backward's (unset: the engine's choice).
void check_gradients(const ModelConfig& config, uint32_t samples, uint32_t seed,
                     uint32_t max_groups = 0, uint32_t run = 1, Device* device = nullptr,
                     testing::GradientSums sums = {}, const KernelOverrides& kernels = {}) {
    Device& dev = device ? *device : test::device();
    size_t messages = dev.validation_messages().size();
    Model model = test::random_model(config, seed);
    test::Samples s = test::random_samples(samples, config.output_dims, seed + 1);
    if (run > 1) cluster(s, run);
    testing::ForwardBackward gpu =
        testing::forward_backward(dev, model, s.uv, s.targets, max_groups, sums, kernels);
    reference::Gradients ref = reference::forward_backward(
        model, {s.uv.begin(), s.uv.end()}, {s.targets.begin(), s.targets.end()});

    ASSERT_EQ(gpu.outputs.size(), ref.outputs.size());
    double max_out = 0;
    for (size_t i = 0; i < ref.outputs.size(); ++i)
        max_out = std::max(max_out, std::abs(double(gpu.outputs[i]) - ref.outputs[i]));
    const test::Tolerances tol = test::tolerances();
    EXPECT_LT(max_out, forward_tolerance(config)) << "forward outputs";
    EXPECT_NEAR(gpu.loss, ref.loss, tol.loss_rel * ref.loss);

    // Each matrix's weights and biases separately, so a small layer cannot hide behind a big one.
    ASSERT_EQ(gpu.grad_mlp.size(), ref.grad_mlp.size());
    size_t off = 0;
    uint32_t in_pad = config.padded_input_width();
    for (uint32_t l = 0; l <= config.hidden_layers; ++l) {
        bool last = l == config.hidden_layers;
        uint32_t out_pad = last ? config.padded_output_width() : config.hidden_width;
        GroupError w = group_error(gpu.grad_mlp, ref.grad_mlp, off, off + out_pad * in_pad);
        off += out_pad * in_pad;
        GroupError b = group_error(gpu.grad_mlp, ref.grad_mlp, off, off + out_pad);
        off += out_pad;
        EXPECT_LT(w.max_rel, tol.weights_max_rel) << "weights of matrix " << l;
        EXPECT_LT(w.norm_rel, tol.weights_norm_rel) << "weights of matrix " << l;
        EXPECT_LT(b.max_rel, tol.weights_max_rel) << "biases of matrix " << l;
        EXPECT_LT(b.norm_rel, tol.weights_norm_rel) << "biases of matrix " << l;
        in_pad = config.hidden_width;
    }
    // Padding never receives gradient: the first matrix's weights of its padding inputs, the last
    // matrix's weights and biases of its padding outputs. (By the layout, not by the reference's
    // zeros: a unit the reference never activates may be active on a sample or two where the
    // tensor cores sum in fp16 (width 128's wide phases), and its gradient is then small, not zero.)
    const uint32_t first_in = config.padded_input_width();
    const uint32_t last_in = config.hidden_layers > 0 ? config.hidden_width : first_in;
    const size_t last_at = gpu.grad_mlp.size() - (config.padded_output_width() * (last_in + 1));
    for (uint32_t o = 0; o < (config.hidden_layers > 0 ? config.hidden_width : config.padded_output_width()); ++o)
        for (uint32_t i = config.input_width(); i < first_in; ++i)
            EXPECT_EQ(gpu.grad_mlp[o * first_in + i], 0.0f) << "padding input " << i << " of output " << o;
    for (uint32_t o = config.output_dims; o < config.padded_output_width(); ++o) {
        for (uint32_t i = 0; i < last_in; ++i)
            EXPECT_EQ(gpu.grad_mlp[last_at + o * last_in + i], 0.0f) << "padding output " << o << ", input " << i;
        EXPECT_EQ(gpu.grad_mlp[last_at + config.padded_output_width() * last_in + o], 0.0f) << "padding bias " << o;
    }

    ASSERT_EQ(gpu.grad_encoding.size(), ref.grad_encoding.size());
    GroupError g = group_error(gpu.grad_encoding, ref.grad_encoding, 0, ref.grad_encoding.size());
    EXPECT_LT(g.max_rel, tol.encoding_max_rel) << "encoding gradients";
    EXPECT_LT(g.norm_rel, tol.encoding_norm_rel) << "encoding gradients";
    test::expect_validation_clean(messages, dev);
}

// The fixed-point pairs (encoding_state.glsl): 64-bit sums of addends hi * 2^32 + lo, lo
// sign-extended, read back as the two exact sums, whatever the signs (negative lo addends borrow
// from the high word; the read gives the borrow back). The addend is formed as the training step
// forms it.
TEST(GpuGradients, FixedPointPairsGiveBackTheirSums) {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int32_t> value(-(1 << 20), 1 << 20);
    for (int trial = 0; trial < 50; ++trial) {
        uint64_t total = 0;
        int64_t lo_sum = 0, hi_sum = 0;
        for (int i = 0; i < 1000; ++i) {
            const int32_t lo = value(rng), hi = value(rng);
            total += (uint64_t(uint32_t(hi - (lo < 0 ? 1 : 0))) << 32) | uint64_t(uint32_t(lo));
            lo_sum += lo;
            hi_sum += hi;
        }
        const auto [lo, hi] = detail::fixed_point_gradient_pair(uint32_t(total), uint32_t(total >> 32));
        EXPECT_EQ(lo, lo_sum);
        EXPECT_EQ(hi, hi_sum);
    }
}

TEST(GpuGradients, DefaultConfigMatchesReference) {
    // 300 samples: several workgroups and a partly filled last one.
    check_gradients(test::default_config(), 300, 11);
}

TEST(GpuGradients, DefaultConfigFreshInputs) {
    check_gradients(test::default_config(31, 8), 200, 12345);
}

TEST(GpuGradients, AlternateConfigMatchesReference) {
    check_gradients(test::alternate_config(), 257, 21);
}

TEST(GpuGradients, WideSingleLayerMatchesReference) {
    ModelConfig c = test::default_config(6, 6);
    c.hidden_width = 64;
    c.hidden_layers = 1;
    c.grid_channels = 2;
    c.encoding.fourier_octaves = 0;
    check_gradients(c, 150, 7);
}

TEST(GpuGradients, HashGridMatchesReference) {
    // Dense and hashed levels, colliding samples: atomics sum every contribution of a row.
    check_gradients(test::hash_test_config(), 300, 41);
}

TEST(GpuGradients, HashGridWideMatchesReference) {
    ModelConfig c = test::hash_test_config();
    c.encoding.hash = {.levels = 8, .features = 4, .log2_table_size = 12, .base_resolution = 4,
                       .per_level_scale = 2.0f};
    c.hidden_width = 64;
    check_gradients(c, 200, 42);
}

// The Instant-NGP MLP width on a dense grid: on the tensor-core path a workgroup's four subgroups
// share each tile (mlp_coopmat_split.glsl), and a batch that leaves the last tile partly empty.
TEST(GpuGradients, DenseGridWideMatchesReference) {
    ModelConfig c = test::default_config();
    c.hidden_width = 64;
    check_gradients(c, 300, 43);
}

// Three hidden layers: the shared tiles' middle (by columns) then spans two matrices.
TEST(GpuGradients, WideThreeLayersMatchesReference) {
    ModelConfig c = test::default_config(7, 5);
    c.hidden_width = 64;
    c.hidden_layers = 3;
    check_gradients(c, 260, 44);
}

// Persistent workgroups: one or a few groups loop over many tiles and add each tile's weight
// gradients to their own partial row; a tile count that does not divide evenly leaves groups with
// different tile counts. The sums must equal the one-tile-per-group result (the reference).
TEST(GpuGradients, FewGroupsAccumulateManyTiles) {
    check_gradients(test::default_config(), 1500, 51, 1);
    check_gradients(test::default_config(), 1500, 52, 3);
    check_gradients(test::hash_test_config(), 1100, 53, 2);
    check_gradients(test::siren_test_config(), 900, 54, 2);
}

// Neighbouring samples in the same cells, in runs of 5 and of 40 (longer than a subgroup), a batch
// that leaves the last subgroup partly empty: every contribution of a run reaches its cells.
TEST(GpuGradients, NeighboursSharingCellsMatchReference) {
    check_gradients(test::default_config(), 300, 61, 0, 5);
    check_gradients(test::default_config(), 300, 62, 2, 40);
    check_gradients(test::hash_test_config(), 300, 63, 0, 5);
    check_gradients(test::hash_test_config(), 300, 64, 3, 40);
}

// A device without 64-bit integer atomics (or DeviceOptions::fixed_point_gradients false) adds the
// encoding's gradients with float atomics: that form against the reference too, on both encodings
// and with neighbours sharing cells.
TEST(GpuGradients, FloatAtomicGradientsMatchReference) {
    Device device = Device::open("auto", DeviceOptions{.validation = true, .fixed_point_gradients = false});
    check_gradients(test::default_config(), 300, 81, 0, 5, &device);
    check_gradients(test::hash_test_config(), 300, 82, 2, 5, &device);
}

// How many of two equally long float vectors' entries differ in any bit (all of them where the
// lengths differ).
size_t floats_differing(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return std::max(a.size(), b.size());
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); ++i) differ += std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i]);
    return differ;
}

// Local gradient sums (train_step.comp's ENC_LOCAL_CELLS): a workgroup sums the shares of the
// encoding's leading cells in shared memory and adds each sum once. On encodings of 1, 2, 3 and 4
// features a cell (an odd last feature, one pair, a pair and an odd one, two pairs), two workgroups
// each taking many tiles, and samples in runs of neighbours: the gradients match the reference, and
// the encoding's are the same bit for bit as every share's own atomic gives (integer sums).
TEST(GpuGradients, LocalGradientSumsAreTheSameBitForBit) {
    Device& dev = test::device();
    ModelConfig pair = test::hash_test_config();
    pair.hidden_width = 32; // the portable kernels or the shared-tile ones: both have the sums
    ModelConfig single = pair;
    single.encoding.hash.features = 1;
    ModelConfig two_pairs = test::hash_test_config();
    two_pairs.encoding.hash = {.levels = 6, .features = 4, .log2_table_size = 10, .base_resolution = 4,
                               .per_level_scale = 2.0f};
    two_pairs.hidden_width = 64;
    ModelConfig grid = test::default_config(7, 5); // 3 features a cell
    grid.hidden_width = 32;
    uint32_t seed = 300;
    const std::pair<const char*, const ModelConfig*> configs[] = {
        {"hash, 2 features", &pair}, {"hash, 1 feature", &single}, {"hash, 4 features", &two_pairs},
        {"dense grid, 3 features", &grid}};
    for (const auto& [name, config] : configs) {
        SCOPED_TRACE(name);
        seed += 10;
        const Model model = test::random_model(*config, seed);
        test::Samples s = test::random_samples(1500, config->output_dims, seed + 1);
        cluster(s, 40);
        const uint32_t groups = 2;
        // Every cell that fits, and none (a cell would need more reads than the batch has).
        const testing::GradientSums all{.min_hits = 0.0, .deferred = false}, none{.min_hits = 1e30};
        EXPECT_GT(testing::gradient_sum_cells(dev, model, 1500, groups, all).local, 0u)
            << "no cell's gradients summed in shared memory";
        EXPECT_EQ(testing::gradient_sum_cells(dev, model, 1500, groups, none).local, 0u);
        const testing::ForwardBackward summed = testing::forward_backward(dev, model, s.uv, s.targets, groups, all);
        const testing::ForwardBackward each = testing::forward_backward(dev, model, s.uv, s.targets, groups, none);
        EXPECT_EQ(floats_differing(summed.grad_encoding, each.grad_encoding), 0u)
            << "of " << each.grad_encoding.size() << " encoding gradients";
        check_gradients(*config, 1500, seed + 2, groups, 40, nullptr, all);
    }
}

// Deferred gradient sums (the hash levels' inputs' gradients left by the step for a pass of their
// own, which sums them in shared memory): with the leading levels deferred and with none, the
// encoding's gradients, whose inputs the pass reads as the step stores them, two fp16 to a word,
// are the same bit for bit on the tensor cores (whose input gradients are fp16: the same
// fixed-point shares, integer sums), within fp16's rounding (a part in 2^11 of each share) on the
// portable kernels; the MLP's are the same bit for bit, and all match the reference. Two
// workgroups over samples in runs of neighbours, on the device's own kernel path (a tile a subgroup
// or shared tiles on the tensor cores, portable elsewhere) and on the portable kernels.
TEST(GpuGradients, DeferredGradientSumsAreTheSameBitForBit) {
    ModelConfig pair = test::hash_test_config();
    pair.hidden_width = 32;
    ModelConfig single = pair; // three inputs: the last fp16 word half used
    single.encoding.hash.features = 1;
    ModelConfig four = test::hash_test_config(); // 3,467 cells of 16 bytes of sums: several sets
    four.encoding.hash = {.levels = 6, .features = 4, .log2_table_size = 10, .base_resolution = 4,
                          .per_level_scale = 2.0f};
    four.hidden_width = 64;
    ModelConfig narrow = test::hash_test_config(); // width 16: a tile a subgroup on the tensor cores
    const std::pair<const char*, const ModelConfig*> configs[] = {
        {"hash, 2 features", &pair}, {"hash, 1 feature", &single}, {"hash, 4 features", &four},
        {"hash, 2 features, width 16", &narrow}};
    std::vector<Device*> devices = {&test::device()};
    if (&test::portable_device() != &test::device()) devices.push_back(&test::portable_device());
    for (Device* dev : devices) {
        uint32_t seed = 300; // LocalGradientSumsAreTheSameBitForBit's models and samples
        for (const auto& [name, config] : configs) {
            SCOPED_TRACE(std::string(name) + " on " + dev->info().name);
            seed += 10;
            const Model model = test::random_model(*config, seed);
            test::Samples s = test::random_samples(1500, config->output_dims, seed + 1);
            cluster(s, 40);
            const uint32_t groups = 2;
            const testing::GradientSums half{.min_hits = 0.0, .local = false}, none{.min_hits = 1e30};
            const testing::SummedCells cells = testing::gradient_sum_cells(*dev, model, 1500, groups, half);
            EXPECT_GT(cells.deferred, 0u) << "no cell's gradients deferred";
            if (config == &four) {
                EXPECT_GT(cells.deferred_sets, 1u) << "its levels summed in one set";
            }
            EXPECT_EQ(cells.local, 0u);
            EXPECT_EQ(testing::gradient_sum_cells(*dev, model, 1500, groups, none).deferred, 0u);
            const testing::ForwardBackward each = testing::forward_backward(*dev, model, s.uv, s.targets, groups, none);
            const testing::ForwardBackward stored = testing::forward_backward(*dev, model, s.uv, s.targets, groups, half);
            if (test::on_tensor_cores() && dev == &test::device()) { // fp16 gradients: held exactly
                EXPECT_EQ(floats_differing(stored.grad_encoding, each.grad_encoding), 0u)
                    << "of " << each.grad_encoding.size() << " encoding gradients, from fp16 inputs";
            } else {
                EXPECT_GT(floats_differing(stored.grad_encoding, each.grad_encoding), 0u) << "fp16 inputs rounded nothing";
                EXPECT_LT(test::relative_difference(stored.grad_encoding, each.grad_encoding), 1e-3);
            }
            EXPECT_EQ(stored.grad_mlp, each.grad_mlp);
            check_gradients(*config, 1500, seed + 2, groups, 40, dev, half);
        }
    }
}

// Shared tiles (mlp_coopmat_split.glsl) in shapes the defaults do not choose: width 16 (one
// subgroup) and width 32 in one part (two) and in two (four), the MLP's ends by rows and by
// columns, so that the tensor cores' layouts of every subgroup count are checked against the
// reference (elsewhere these run the portable kernels).
TEST(GpuGradients, SharedTilesOfEveryShapeMatchReference) {
    ModelConfig narrow = test::default_config();
    narrow.hidden_width = 16;
    KernelOverrides k;
    k.shared_tile = true;
    for (bool ends : {false, true}) {
        k.ends_by_columns = ends;
        for (uint32_t parts : {1u, 2u}) {
            k.row_split = parts;
            check_gradients(test::default_config(), 300, 101, 2, 1, nullptr, {}, k);
            check_gradients(narrow, 300, 102, 2, 1, nullptr, {}, k);
        }
    }
}

// The shared tiles' narrow ends (CM_NARROW_ENDS, on devices with the 16x8 shapes: elsewhere both
// runs take the 16-wide ends) against the 16-wide ones and the reference: the lake model (3 inputs,
// 3 outputs: both ends narrow) in one part and two, the 64-wide hash model (6 inputs) and width 128
// (its ends by columns: the last matrix's forward product narrow).
TEST(GpuGradients, NarrowEndsMatchReference) {
    ModelConfig hash = test::hash_test_config();
    hash.hidden_width = 64;
    ModelConfig wide = test::default_config();
    wide.hidden_width = 128;
    for (bool narrow : {false, true}) {
        SCOPED_TRACE(std::string("narrow_ends ") + (narrow ? "on" : "off"));
        KernelOverrides k;
        k.narrow_ends = narrow;
        for (uint32_t parts : {1u, 2u}) {
            KernelOverrides split = k;
            split.row_split = parts;
            check_gradients(test::default_config(), 300, 111, 2, 1, nullptr, {}, split);
        }
        check_gradients(hash, 300, 112, 2, 1, nullptr, {}, k);
        check_gradients(wide, 300, 113, 2, 1, nullptr, {}, k);
    }
}

// Width 128's tiles (2 sample subgroups of 8) have the next tile's inputs encoded by two of the
// subgroups that hold no sample (mlp_coopmat_split.glsl's CM_STAGE_INPUTS), its targets fetched by
// them too where they fit (train_step.comp's CM_STAGE_TARGETS: the dense grid's), and the
// encoding's backward pass taken by the other four during the next tile (CM_LATE_ENCODING).
// Staged, staged and late, with the targets staged and not, on the dense grid and on a hash grid,
// the encoding's input gradients by rows and by columns, a batch that ends inside a tile,
// workgroups of many tiles, of one and of none: the outputs and gradients are the same bit for bit
// as the sample subgroups' own encoding gives (fixed-point sums), and match the reference.
TEST(GpuGradients, StagedInputsAndLateEncodingAreTheSameBitForBit) {
    Device& dev = test::device();
    ModelConfig grid = test::default_config();
    grid.hidden_width = 128;
    ModelConfig hash = test::hash_test_config();
    hash.hidden_width = 128;
    uint32_t seed = 500;
    for (const ModelConfig* config : {&grid, &hash})
        for (bool rows : {true, false}) {
            SCOPED_TRACE(std::string(config == &grid ? "dense grid" : "hash grid") +
                         ", encoding_inputs_by_rows " + (rows ? "on" : "off"));
            KernelOverrides k;
            k.encoding_inputs_by_rows = rows;
            seed += 10;
            const Model model = test::random_model(*config, seed);
            test::Samples s = test::random_samples(1500, config->output_dims, seed + 1);
            cluster(s, 40);
            for (uint32_t groups : {2u, 0u}) { // 12 tiles each; the engine's count: one or none
                SCOPED_TRACE("groups " + std::to_string(groups));
                KernelOverrides unstaged = k;
                unstaged.stage_inputs = false;
                const testing::ForwardBackward own =
                    testing::forward_backward(dev, model, s.uv, s.targets, groups, {}, unstaged);
                for (bool late_on : {true, false})
                    for (bool targets_on : {true, false}) {
                        SCOPED_TRACE(std::string("staged, late_encoding ") + (late_on ? "on" : "off") +
                                     ", stage_targets " + (targets_on ? "on" : "off"));
                        KernelOverrides staged = k;
                        staged.late_encoding = late_on;
                        staged.stage_targets = targets_on;
                        const testing::ForwardBackward other =
                            testing::forward_backward(dev, model, s.uv, s.targets, groups, {}, staged);
                        EXPECT_EQ(floats_differing(other.grad_encoding, own.grad_encoding), 0u)
                            << "of " << own.grad_encoding.size() << " encoding gradients";
                        EXPECT_EQ(other.grad_mlp, own.grad_mlp);
                        EXPECT_EQ(other.outputs, own.outputs);
                        EXPECT_EQ(other.loss, own.loss);
                    }
            }
            check_gradients(*config, 1100, seed + 2, 2, 1, nullptr, {}, k);
        }
}

// Width 128 and a 5-layer SIREN: on the tensor cores their fp16 weights do not fit shared memory
// beside a tile, so the products read them from the device-memory copy (width 128 on shared tiles
// of 64 samples, its blocks held for the step or loaded for each phase); few groups make each
// accumulate many tiles.
TEST(GpuGradients, WeightsReadFromMemoryMatchReference) {
    ModelConfig wide = test::default_config();
    wide.hidden_width = 128;
    {
        SCOPED_TRACE("width 128");
        check_gradients(wide, 300, 71);
    }
    {
        SCOPED_TRACE("width 128, 2 groups");
        check_gradients(wide, 1100, 72, 2);
    }
    SCOPED_TRACE("SIREN 64x5");
    check_gradients(siren_config(64, 5, 30.0f), 200, 73);
}

TEST(GpuGradients, SirenMatchesReference) {
    check_gradients(test::siren_test_config(), 200, 31);
}

TEST(GpuGradients, FrequencyMatchesReference) {
    check_gradients(test::frequency_test_config(), 300, 36);
    // 14 octaves, the most: 58 inputs, sin(8192 pi u) at the finest, where an unreduced argument
    // would leave the sine's accurate range.
    ModelConfig finest = test::frequency_test_config();
    finest.encoding.frequency.octaves = 14;
    SCOPED_TRACE("14 octaves");
    check_gradients(finest, 200, 37);
}

TEST(GpuGradients, WideSirenMatchesReference) {
    check_gradients(siren_config(64, 3, 30.0f), 130, 32);
}

// graphs/compare_models.yaml's SIREN: 128 wide, 6 hidden layers, 83,331 weights. One sample's
// forward pass is 83,000 multiply-adds, more than lavapipe lets an invocation's loops run one term
// an iteration (mlp.glsl's LOOPS_CAPPED): there it rendered and trained on zeros before. And the
// deepest 128-wide MLP a model may have (8 hidden layers), the most loop iterations a tile takes.
TEST(GpuGradients, CompareGraphSirenMatchesReference) {
    check_gradients(siren_config(128, 6, 30.0f), 100, 34);
    SCOPED_TRACE("128 x 8");
    check_gradients(siren_config(128, 8, 30.0f), 60, 35);
}

void check_render(const ModelConfig& config, uint32_t w, uint32_t h) {
    size_t messages = test::device().validation_messages().size();
    Model model = test::random_model(config, 9);
    std::vector<float> rgb = render(test::device(), model, w, h);
    ASSERT_EQ(rgb.size(), size_t(w) * h * config.output_dims);
    double max_err = 0;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            std::vector<double> ref =
                reference::forward(model, (x + 0.5) / double(w), (y + 0.5) / double(h));
            for (uint32_t o = 0; o < config.output_dims; ++o)
                max_err = std::max(max_err,
                                   std::abs(ref[o] - rgb[(size_t(y) * w + x) * config.output_dims + o]));
        }
    EXPECT_LT(max_err, forward_tolerance(config));
    test::expect_validation_clean(messages);
}

TEST(GpuForward, RenderMatchesReferenceDefaultConfig) { check_render(test::default_config(), 61, 37); }

TEST(GpuForward, RenderMatchesReferenceAlternateConfig) { check_render(test::alternate_config(), 40, 50); }

TEST(GpuForward, RenderMatchesReferenceSiren) { check_render(test::siren_test_config(), 33, 29); }

TEST(GpuForward, RenderMatchesReferenceHashGrid) { check_render(test::hash_test_config(), 45, 31); }

TEST(GpuForward, RenderMatchesReferenceFrequency) { check_render(test::frequency_test_config(), 37, 23); }

TEST(GpuForward, RenderMatchesReferenceWideConfigs) {
    ModelConfig dense = test::default_config();
    dense.hidden_width = 64;
    check_render(dense, 41, 23);
    ModelConfig hash = test::hash_test_config(); // as HashGridWideMatchesReference's
    hash.encoding.hash = {.levels = 8, .features = 4, .log2_table_size = 12, .base_resolution = 4,
                          .per_level_scale = 2.0f};
    hash.hidden_width = 64;
    check_render(hash, 38, 27);
    ModelConfig widest = test::default_config(); // weights read from memory on the tensor cores
    widest.hidden_width = 128;
    check_render(widest, 37, 19);
    check_render(siren_config(64, 5, 30.0f), 29, 21);
    check_render(siren_config(128, 6, 30.0f), 23, 17); // graphs/compare_models.yaml's SIREN (above)
}

TEST(GpuForward, RenderRejectsEmptyAndHugeSizes) {
    Model model = initial_model(test::default_config(), 1);
    EXPECT_THROW(render(test::device(), model, 0, 10), EngineError);
    try {
        render(test::device(), model, 200000, 200000);
        FAIL() << "a 200000x200000 render should not fit one dispatch";
    } catch (const EngineError& e) {
        EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
    }
}

TEST(GpuForward, RenderRejectsInconsistentModel) {
    Model model = initial_model(test::default_config(), 1);
    model.encoding_params.pop_back();
    EXPECT_THROW(render(test::device(), model, 8, 8), EngineError);
}

} // namespace
} // namespace ff::engine
