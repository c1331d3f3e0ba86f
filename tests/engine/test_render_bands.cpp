// A render runs in bands of rows, each within maxStorageBufferRange and one dispatch (a large image
// would need more than one buffer may hold), into a vector or the caller's buffer, and the Train
// node's full-image error is computed on the device, band by band, against the training target. FIELDFLOW_RENDER_BAND_ROWS forces small
// bands so that a small image crosses several band edges here.
#include "test_support.hpp"

#include <cmath>
#include <cstdlib>

namespace ff::engine {
namespace {

// Sets FIELDFLOW_RENDER_BAND_ROWS for one scope.
struct BandRows : test::ScopedEnv {
    explicit BandRows(const char* rows) : ScopedEnv("FIELDFLOW_RENDER_BAND_ROWS", rows) {}
};

// The image as the trainer holds it: 8 bits per channel.
double quantised(float v) { return std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f) / 255.0; }

// A small model trained `steps` steps on `image`, so that its renders are not the initial ones.
Trainer trained(const ImageData& image, uint32_t steps) {
    TrainOptions o;
    o.batch = 256;
    o.steps = steps;
    Trainer t(test::device(), test::default_config(11, 7), o, image);
    t.train(steps);
    return t;
}

TEST(RenderBands, BandsGiveTheWholeRender) {
    size_t messages = test::device().validation_messages().size();
    const Model model = test::random_model(test::default_config(9, 7), 3);
    const std::vector<float> whole = render(test::device(), model, 37, 29);
    for (const char* rows : {"1", "5", "28"}) {
        BandRows band(rows);
        EXPECT_EQ(render(test::device(), model, 37, 29), whole) << rows << " rows per band";
    }
    test::expect_validation_clean(messages);
}

TEST(RenderBands, FullImageErrorMatchesTheRenderAgainstTheTarget) {
    size_t messages = test::device().validation_messages().size();
    const ImageData image = test::synthetic_image(41, 23);
    Trainer t = trained(image, 20);
    const std::vector<float> rgb = t.render(image.width, image.height);
    double sum = 0;
    for (size_t i = 0; i < rgb.size(); ++i) {
        const double d = double(rgb[i]) - quantised(image.rgb[i]);
        sum += d * d;
    }
    const double expected = sum / double(rgb.size());
    EXPECT_NEAR(t.full_image_mse(), expected, 1e-6 * expected);
    {
        BandRows band("4");
        EXPECT_NEAR(t.full_image_mse(), expected, 1e-6 * expected);
    }
    test::expect_validation_clean(messages);
}

TEST(RenderBands, RenderIntoTheCallersBufferGivesTheSameRender) {
    size_t messages = test::device().validation_messages().size();
    Trainer t = trained(test::synthetic_image(41, 23), 10);
    const std::vector<float> whole = t.render(37, 29);
    std::vector<float> into(whole.size() + 1, -7.0f); // one float past the end: left alone
    t.render_into(37, 29, into.data());
    EXPECT_EQ(std::vector<float>(into.begin(), into.end() - 1), whole);
    EXPECT_EQ(into.back(), -7.0f);
    {
        BandRows band("5");
        std::fill(into.begin(), into.end() - 1, -7.0f);
        t.render_into(37, 29, into.data());
        EXPECT_EQ(std::vector<float>(into.begin(), into.end() - 1), whole) << "5 rows per band";
    }
    test::expect_validation_clean(messages);
}

} // namespace
} // namespace ff::engine
