// The training samples (kernels/shaders/sampling.glsl): drawn alike for the same seed and step,
// stratified over the image, and ordered so that a subgroup's samples lie a few cells apart.
#include "fieldflow/engine/testing.hpp"
#include "encodings/encoding.hpp"
#include "field/sampling.hpp"
#include "test_support.hpp"

#include <cstdlib>
#include <set>
#include <vector>

namespace ff::engine {
namespace {

// The samples a grid of cells_across x 2 cells draws on a width x height image.
std::vector<uint32_t> draw(uint32_t cells_across, uint64_t seed, uint32_t step, uint32_t batch, uint32_t w,
                           uint32_t h) {
    return testing::sample_indices(test::device(), test::default_config(cells_across, 2), seed, step, batch, w, h);
}

// How many samples fell on each pixel.
std::vector<uint32_t> counts(const std::vector<uint32_t>& pixels, uint32_t w, uint32_t h) {
    std::vector<uint32_t> n(size_t(w) * h, 0);
    for (uint32_t p : pixels) ++n.at(p);
    return n;
}

TEST(Sampler, SameSeedSameSamplesAndInRange) {
    const uint32_t w = 37, h = 23, batch = 5000;
    auto a = draw(9, 7, 3, batch, w, h);
    EXPECT_EQ(a, draw(9, 7, 3, batch, w, h));
    EXPECT_NE(a, draw(9, 7, 4, batch, w, h));
    EXPECT_NE(a, draw(9, 8, 3, batch, w, h));
    EXPECT_NE(a, draw(9, 7ull | (1ull << 40), 3, batch, w, h));
    ASSERT_EQ(a.size(), batch);
    for (uint32_t i : a) ASSERT_LT(i, w * h);
    test::expect_validation_clean(test::device().validation_messages().size());
}

// Where the batch is a whole multiple k of the pixels, each pixel is k strata: it takes exactly k
// samples, whatever the draws within them. A power-of-two batch (divided by shifts) and another
// (divided bit by bit), each with its blocks dealt out to the subgroups' rows.
TEST(Sampler, EveryPixelTakesItsShareOfAStep) {
    struct Case { uint32_t w, h, k; };
    for (const Case c : {Case{32, 16, 8}, Case{37, 23, 6}, Case{61, 7, 3}}) {
        const uint32_t batch = c.w * c.h * c.k;
        for (uint32_t step : {0u, 5u}) {
            const std::vector<uint32_t> n = counts(draw(c.w / 4, 11, step, batch, c.w, c.h), c.w, c.h);
            for (size_t p = 0; p < n.size(); ++p)
                ASSERT_EQ(n[p], c.k) << c.w << "x" << c.h << " batch " << batch << " step " << step << " pixel " << p;
        }
    }
}

// With fewer samples than pixels, every run of pixels holds its share of the batch, give or take
// the two strata at its ends (independent draws would stray by about the square root of it).
TEST(Sampler, EveryRegionTakesItsShareOfAStep) {
    const uint32_t w = 200, h = 150, pixels = w * h;
    for (uint32_t batch : {4096u, 5000u}) {
        const std::vector<uint32_t> n = counts(draw(50, 3, 1, batch, w, h), w, h);
        for (uint32_t first = 0; first < pixels; first += 997) {
            const uint32_t last = std::min(pixels, first + 2500);
            uint32_t got = 0;
            for (uint32_t p = first; p < last; ++p) got += n[p];
            const double expected = double(last - first) * batch / pixels;
            ASSERT_NEAR(double(got), expected, 2.0) << "pixels " << first << ".." << last << " batch " << batch;
        }
        std::set<uint32_t> hit;
        for (uint32_t p = 0; p < pixels; ++p)
            if (n[p]) hit.insert(p);
        EXPECT_GT(hit.size(), batch * 9 / 10) << "strata of about 6 pixels each draw distinct pixels";
    }
}

// The 32 samples of a row of a whole block lie 2^(shift - 5) strata apart, so that a subgroup's
// lanes read and add to different cells (sampling.cpp); past the last whole block the samples keep
// their order.
TEST(Sampler, ASubgroupsSamplesLieBlocksRowsApart) {
    const uint32_t w = 256, h = 64, pixels = w * h, batch = 3 * 4096 + 100, cells = 64;
    const uint32_t shift = detail::sample_block_shift(batch, w, h, cells);
    ASSERT_GT(shift, 5u);
    const uint32_t block = 1u << shift, apart = block >> 5; // strata between a row's lanes
    ASSERT_LT(block, batch);
    const std::vector<uint32_t> a = draw(cells, 9, 2, batch, w, h);
    const double stratum = double(pixels) / batch;                // pixels a stratum spans
    const uint32_t whole = batch / block * block;
    for (uint32_t s = 0; s + 1 < batch; ++s) {
        const bool same_row = s + 1 < whole && (s + 1) % 32 != 0;
        const bool in_tail = s >= whole;
        if (!same_row && !in_tail) continue;
        const double step = in_tail ? stratum : apart * stratum; // from one stratum to the next one's
        const double gap = double(a[s + 1]) - double(a[s]);
        ASSERT_NEAR(gap, step, stratum + 1.0) << "samples " << s << " and " << s + 1;
    }
}

TEST(Sampler, BlocksPutASubgroupsSamplesThreeCellsApart) {
    // The lake model on leuvenA (751x563, 188 cells across): a stratum is 0.40 pixels at 2^20 and
    // a cell 4.0 pixels, so 32 strata (blocks of 2^10) put the lanes 3.2 cells apart.
    EXPECT_EQ(detail::sample_block_shift(1u << 20, 751, 563, 188), 10u);
    EXPECT_EQ(detail::sample_block_shift(1u << 18, 751, 563, 188), 8u);
    EXPECT_EQ(detail::sample_block_shift(1u << 22, 751, 563, 188), 12u);
    // Strata already wider than three cells: blocks of one row keep the samples in their order.
    EXPECT_EQ(detail::sample_block_shift(1u << 14, 751, 563, 188), 5u);
    EXPECT_EQ(detail::sample_block_shift(1u << 20, 751, 563, 0), 5u); // no cells
    EXPECT_EQ(detail::sample_block_shift(0, 751, 563, 188), 5u);
    EXPECT_EQ(detail::sample_block_shift(0xffffffffu, 4, 4, 4), 30u); // the largest blocks
}

// The spacing counts cells of the dense grid, or of a hash grid's levels' geometric mean (the
// 16 levels of 16-818 cells a side: 114); the coords encoding has none.
TEST(Sampler, SpacingCountsTheEncodingsCells) {
    const ModelConfig grid = test::default_config(188, 141);
    EXPECT_EQ(detail::encoding_of(grid).cells_across(grid), 188u);
    ModelConfig hash;
    hash.encoding.kind = EncodingKind::hash_grid;
    hash.grid_width = hash.grid_height = 0;
    hash.encoding.hash.levels = 16;
    hash.encoding.hash.base_resolution = 16;
    hash.encoding.hash.per_level_scale = 1.3f;
    EXPECT_EQ(detail::encoding_of(hash).cells_across(hash), 114u);
    EXPECT_EQ(detail::sampling_defines(hash, 1u << 20, 751, 563),
              (detail::Defines{{"SAMPLES_BLOCK_SHIFT", "11"}, {"SAMPLES_BATCH_LOG2", "20"}, {"SAMPLES_XY16", "1"}}));
    EXPECT_EQ(detail::encoding_of(test::siren_test_config()).cells_across, nullptr);
}

// The samples' kernel options (measurements) reach the defines; a block size out of range is an
// error naming the option.
TEST(Sampler, KernelOptionsReachTheDefines) {
    const ModelConfig c = test::default_config();
    KernelOverrides o;
    o.samples_block = 4;
    try {
        detail::sampling_defines(c, 4096, 64, 64, o);
        ADD_FAILURE() << "samples_block 4 was accepted";
    } catch (const EngineError& e) {
        EXPECT_STREQ(e.what(), "the kernel option samples_block 4 must be 5..30");
    }
    o.samples_block = 7;
    EXPECT_EQ(detail::sampling_defines(c, 4000, 64, 64, o),
              (detail::Defines{{"SAMPLES_BLOCK_SHIFT", "7"}, {"SAMPLES_XY16", "1"}}));
    EXPECT_EQ(detail::sampling_defines(c, 4096, 64, 64, o),
              (detail::Defines{{"SAMPLES_BLOCK_SHIFT", "7"}, {"SAMPLES_BATCH_LOG2", "12"}, {"SAMPLES_XY16", "1"}}));
    o.samples_xy16 = false;
    EXPECT_EQ(detail::sampling_defines(c, 4000, 64, 64, o), (detail::Defines{{"SAMPLES_BLOCK_SHIFT", "7"}}));
}

// A pixel's column and row fit 16 bits each up to 65,536 pixels a side (train_step.comp's staged
// pixels take them so); a wider or taller image's pixels are staged by index.
TEST(Sampler, ColumnAndRowTakeSixteenBitsUpTo65536) {
    const ModelConfig c = test::default_config();
    auto xy16 = [&](uint32_t w, uint32_t h) {
        for (const auto& [name, value] : detail::sampling_defines(c, 4000, w, h))
            if (name == "SAMPLES_XY16") return true;
        return false;
    };
    EXPECT_TRUE(xy16(65536, 65536));
    EXPECT_TRUE(xy16(1, 1));
    EXPECT_FALSE(xy16(65537, 100));
    EXPECT_FALSE(xy16(100, 65537));
}

} // namespace
} // namespace ff::engine
