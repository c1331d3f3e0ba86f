// A render runs in bands of rows, each within maxStorageBufferRange and one dispatch (a large image
// would need more than one buffer may hold), into a vector or the caller's buffer, and the Train
// node's full-image error is computed on the device, band by band, against the training target.
// KernelOverrides::render_band_rows forces small bands so that a small image crosses several band
// edges here.
#include "test_support.hpp"

#include <cmath>
#include <cstdlib>

namespace ff::engine {
namespace {

// Renders in bands of at most `rows` rows.
KernelOverrides band_rows(uint32_t rows) {
    KernelOverrides o;
    o.render_band_rows = rows;
    return o;
}

// The image as the trainer holds it: 8 bits per channel.
double quantised(float v) { return std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f) / 255.0; }

// A small model trained `steps` steps on `image`, so that its renders are not the initial ones
// (the same model whatever the bands: they are not part of training).
Trainer trained(const ImageData& image, uint32_t steps, const KernelOverrides& kernels = {}) {
    TrainOptions o;
    o.batch = 256;
    o.steps = steps;
    o.kernels = kernels;
    Trainer t(test::device(), test::default_config(11, 7), o, image);
    t.train(steps);
    return t;
}

TEST(RenderBands, BandsGiveTheWholeRender) {
    size_t messages = test::device().validation_messages().size();
    const Model model = test::random_model(test::default_config(9, 7), 3);
    const std::vector<float> whole = render(test::device(), model, 37, 29);
    for (uint32_t rows : {1u, 5u, 28u})
        EXPECT_EQ(render(test::device(), model, 37, 29, band_rows(rows)), whole) << rows << " rows per band";
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
    Trainer in_bands = trained(image, 20, band_rows(4));
    EXPECT_EQ(in_bands.render(image.width, image.height), rgb) << "the same model";
    EXPECT_NEAR(in_bands.full_image_mse(), expected, 1e-6 * expected);
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
    Trainer in_bands = trained(test::synthetic_image(41, 23), 10, band_rows(5));
    std::fill(into.begin(), into.end() - 1, -7.0f);
    in_bands.render_into(37, 29, into.data());
    EXPECT_EQ(std::vector<float>(into.begin(), into.end() - 1), whole) << "5 rows per band";
    test::expect_validation_clean(messages);
}

} // namespace
} // namespace ff::engine
