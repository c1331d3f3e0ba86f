// The splat engine against its CPU reference: the reference's gradients against finite
// differences, then the GPU rasteriser's forward, loss and gradients against the reference on
// random splats (across tile borders, off screen, elongated and rotated), render_splats at another
// size, a short fit with the pair buffer growing, and bad input. Validation layer on throughout.
#include "fieldflow/engine/splats.hpp"
#include "fieldflow/engine/splats_testing.hpp"
#include "test_splats_reference.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace ff::engine::test {
namespace {

// Random splats over (and a little beyond) a width x height image: sizes from sub-pixel to
// several tiles, arbitrary correlation, colours in [-0.2, 1].
std::vector<double> random_splats(uint32_t count, uint32_t width, uint32_t height, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::vector<double> p;
    for (uint32_t i = 0; i < count; ++i) {
        double x = (u01(rng) * 1.2 - 0.1) * width, y = (u01(rng) * 1.2 - 0.1) * height;
        double l11 = 0.5 + 8.0 * u01(rng) * u01(rng), l22 = 0.5 + 8.0 * u01(rng) * u01(rng);
        double l21 = (u01(rng) - 0.5) * 8.0;
        p.insert(p.end(), {x, y, l11, l21, l22, u01(rng) * 1.2 - 0.2, u01(rng) * 1.2 - 0.2,
                           u01(rng) * 1.2 - 0.2});
    }
    return p;
}

std::vector<double> random_image(uint32_t width, uint32_t height, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::vector<double> t(size_t(width) * height * 3);
    for (double& v : t) v = u01(rng);
    return t;
}

SplatModel to_model(const std::vector<double>& p, uint32_t width, uint32_t height) {
    SplatModel m;
    m.config.count = uint32_t(p.size() / kSplatParams);
    m.width = width;
    m.height = height;
    m.params.assign(p.begin(), p.end());
    return m;
}

ImageData to_image(const std::vector<double>& rgb, uint32_t width, uint32_t height) {
    return {width, height, std::vector<float>(rgb.begin(), rgb.end())};
}

std::vector<double> as_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

TEST(SplatReference, GradientsMatchFiniteDifferences) {
    const uint32_t W = 23, H = 19;
    std::vector<double> params = random_splats(6, W, H, 11);
    std::vector<double> target = random_image(W, H, 12);
    SplatReference ref = splat_reference(params, W, H, target);
    ASSERT_GT(ref.loss, 0.0);
    const double eps = 1e-6;
    int nonzero = 0;
    for (size_t k = 0; k < params.size(); ++k) {
        std::vector<double> plus = params, minus = params;
        plus[k] += eps;
        minus[k] -= eps;
        double fd = (splat_reference(plus, W, H, target).loss - splat_reference(minus, W, H, target).loss) /
                    (2 * eps);
        EXPECT_NEAR(ref.grads[k], fd, 1e-6 * std::abs(fd) + 1e-9)
            << "splat " << k / 8 << " parameter " << k % 8;
        if (std::abs(fd) > 1e-6) ++nonzero;
    }
    EXPECT_GT(nonzero, int(params.size()) / 2); // the check is not vacuous
}

// Relative error of a against b over one parameter group, as a norm ratio.
double group_error(const std::vector<float>& a, const std::vector<double>& b, int first, int last) {
    double num = 0, den = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        int k = int(i % kSplatParams);
        if (k < first || k > last) continue;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return std::sqrt(num / std::max(den, 1e-300));
}

void expect_gpu_matches_reference(uint32_t count, uint32_t W, uint32_t H, uint32_t seed) {
    size_t since = device().validation_messages().size();
    std::vector<double> params = random_splats(count, W, H, seed);
    std::vector<double> target = random_image(W, H, seed + 1);
    // The GPU works in float: compare against the reference of the float-rounded inputs.
    SplatModel model = to_model(params, W, H);
    ImageData image = to_image(target, W, H);
    SplatReference ref = splat_reference(as_double(model.params), W, H, as_double(image.rgb));
    testing::SplatForwardBackward gpu = testing::splat_forward_backward(device(), model, image);

    EXPECT_GT(gpu.pairs, uint64_t(count)); // splats straddle tiles
    double max_rgb = 0;
    for (size_t i = 0; i < ref.rgb.size(); ++i) max_rgb = std::max(max_rgb, std::abs(gpu.rgb[i] - ref.rgb[i]));
    EXPECT_LT(max_rgb, 1e-4);
    EXPECT_NEAR(gpu.loss, ref.loss, 1e-4 * ref.loss);
    const char* groups[3] = {"position", "Cholesky", "colour"};
    const int first[3] = {0, 2, 5}, last[3] = {1, 4, 7};
    for (int g = 0; g < 3; ++g)
        EXPECT_LT(group_error(gpu.grads, ref.grads, first[g], last[g]), 1e-3) << groups[g];
    // Element-wise: within 1e-3 relative, or tiny next to the largest gradient of its kind.
    std::vector<double> largest(kSplatParams, 0.0);
    for (size_t i = 0; i < ref.grads.size(); ++i)
        largest[i % kSplatParams] = std::max(largest[i % kSplatParams], std::abs(ref.grads[i]));
    int bad = 0;
    for (size_t i = 0; i < ref.grads.size(); ++i) {
        double tol = 1e-3 * std::abs(ref.grads[i]) + 1e-5 * largest[i % kSplatParams];
        if (std::abs(gpu.grads[i] - ref.grads[i]) > tol && ++bad <= 5)
            ADD_FAILURE() << "splat " << i / 8 << " parameter " << i % 8 << ": gpu " << gpu.grads[i]
                          << ", reference " << ref.grads[i];
    }
    expect_validation_clean(since);
}

TEST(SplatGpu, ForwardAndGradientsMatchReference) { expect_gpu_matches_reference(200, 64, 48, 21); }

TEST(SplatGpu, ForwardAndGradientsMatchReferenceOnRaggedImage) {
    expect_gpu_matches_reference(90, 37, 53, 31); // edge tiles partly outside the image
}

TEST(SplatGpu, ManySplatsPerTileSpanSeveralBatches) {
    // 700 splats on 2x2 tiles: the per-tile lists exceed the forward (256) and backward (64) batches.
    expect_gpu_matches_reference(700, 32, 32, 41);
}

TEST(SplatGpu, RenderScalesToAnySize) {
    size_t since = device().validation_messages().size();
    const uint32_t W = 40, H = 30, W2 = 100, H2 = 45;
    std::vector<double> params = random_splats(60, W, H, 51);
    SplatModel model = to_model(params, W, H);
    std::vector<float> rgb = render_splats(device(), model, W2, H2);
    ASSERT_EQ(rgb.size(), size_t(W2) * H2 * 3);
    // The same splats mapped to the new size by hand: mu' = S mu, L' = S L.
    std::vector<double> scaled = as_double(model.params);
    double sx = double(W2) / W, sy = double(H2) / H;
    for (size_t o = 0; o < scaled.size(); o += 8) {
        scaled[o] *= sx;
        scaled[o + 1] *= sy;
        scaled[o + 2] *= sx;
        scaled[o + 3] *= sy;
        scaled[o + 4] *= sy;
    }
    SplatReference ref = splat_reference(scaled, W2, H2, std::vector<double>(size_t(W2) * H2 * 3, 0.0));
    double max_err = 0, max_value = 0;
    for (size_t i = 0; i < rgb.size(); ++i) {
        max_err = std::max(max_err, std::abs(rgb[i] - std::clamp(ref.rgb[i], 0.0, 1.0)));
        max_value = std::max(max_value, double(rgb[i]));
    }
    EXPECT_LT(max_err, 1e-4);
    EXPECT_GT(max_value, 0.1);
    expect_validation_clean(since);
}

// A smooth synthetic image (no OpenCV here; the photo fit lives in test_splats_fit.cpp).
ImageData synthetic_image(uint32_t W, uint32_t H) {
    ImageData image{W, H, std::vector<float>(size_t(W) * H * 3)};
    for (uint32_t y = 0; y < H; ++y)
        for (uint32_t x = 0; x < W; ++x) {
            float* p = &image.rgb[(size_t(y) * W + x) * 3];
            p[0] = 0.5f + 0.4f * std::sin(x * 0.3f);
            p[1] = (x / 8 + y / 8) % 2 ? 0.8f : 0.2f;
            p[2] = float(y) / H;
        }
    return image;
}

TEST(SplatTrainer, InitialisationIsDeterministicAndCoversTheImage) {
    ImageData image = synthetic_image(48, 40);
    SplatModel a = initial_splats({.count = 150}, image, 5), b = initial_splats({.count = 150}, image, 5);
    SplatModel c = initial_splats({.count = 150}, image, 6);
    EXPECT_EQ(a.params, b.params);
    EXPECT_NE(a.params, c.params);
    ASSERT_EQ(a.params.size(), 150u * kSplatParams);
    for (size_t o = 0; o < a.params.size(); o += kSplatParams) {
        EXPECT_TRUE(a.params[o] >= 0 && a.params[o] <= 48 && a.params[o + 1] >= 0 && a.params[o + 1] <= 40);
        EXPECT_GT(a.params[o + 2], 0.0f);
        EXPECT_GT(a.params[o + 4], 0.0f);
    }
}

TEST(SplatTrainer, ShortFitLowersTheLossAndPairBufferGrows) {
    size_t since = device().validation_messages().size();
    ImageData image = synthetic_image(48, 40);
    SplatTrainOptions options;
    options.seed = 3;
    SplatTrainer trainer(device(), {.count = 150}, options, image);
    double before = trainer.full_image_mse();
    trainer.train(60);
    double after = trainer.full_image_mse();
    EXPECT_FALSE(trainer.diverged());
    EXPECT_EQ(trainer.step(), 60u);
    EXPECT_LT(after, 0.7 * before) << "MSE " << before << " -> " << after;

    // Tiny splats whose covariances then blow up (a huge Cholesky learning rate): the pairs outgrow
    // the buffer sized for the start, which must grow without a crash or a validation message.
    SplatModel start = trainer.model();
    for (size_t o = 0; o < start.params.size(); o += kSplatParams) {
        start.params[o + 2] = start.params[o + 4] = 0.4f;
        start.params[o + 3] = 0;
    }
    SplatTrainOptions blow_up = options;
    blow_up.lr_cholesky = 5.0f;
    ImageData large = synthetic_image(96, 80);
    for (size_t o = 0; o < start.params.size(); o += kSplatParams) {
        start.params[o] *= 2;
        start.params[o + 1] *= 2;
    }
    start.width = 96;
    start.height = 80;
    SplatTrainer growing(device(), {.count = 150}, blow_up, large, &start);
    uint64_t bytes = growing.device_bytes();
    growing.train(60);
    EXPECT_GT(growing.device_bytes(), bytes);
    EXPECT_EQ(growing.render(24, 20).size(), 24u * 20 * 3);
    expect_validation_clean(since);
}

TEST(SplatTrainer, BadInputIsRefusedWithAMessage) {
    ImageData image = synthetic_image(16, 16);
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const EngineError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message([&] { SplatTrainer t(device(), {.count = 0}, {}, image); }).find("count"), std::string::npos);
    ImageData short_image = image;
    short_image.rgb.pop_back();
    EXPECT_NE(message([&] { SplatTrainer t(device(), {.count = 10}, {}, short_image); }).find("floats"),
              std::string::npos);
    SplatModel model = initial_splats({.count = 10}, image, 1);
    model.params.pop_back();
    EXPECT_NE(message([&] { render_splats(device(), model, 8, 8); }).find("parameters"), std::string::npos);
    model = initial_splats({.count = 10}, image, 1);
    model.params[3] = NAN;
    EXPECT_NE(message([&] { render_splats(device(), model, 8, 8); }).find("non-finite"), std::string::npos);
    model = initial_splats({.count = 10}, image, 1);
    EXPECT_NE(message([&] { render_splats(device(), model, 0, 8); }).find("render size"), std::string::npos);
    SplatModel other = initial_splats({.count = 12}, image, 1);
    EXPECT_NE(message([&] { SplatTrainer t(device(), {.count = 10}, {}, image, &other); }).find("differs"),
              std::string::npos);
}

} // namespace
} // namespace ff::engine::test
