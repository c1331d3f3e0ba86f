// The metrics library against independent computations (cv::PSNR, a direct SSIM), the Metrics
// node's JSON, and WriteJson.
#include "fake_host.hpp"
#include "metrics/image_metrics.hpp"
#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

using ff::test::FakeRun;
using ff::test::ScratchDir;

namespace {

// SSIM written directly from Wang et al. (2004): for every 11x11 window that lies inside the
// image, Gaussian-weighted (sigma 1.5) means, variances and covariance, then the SSIM formula;
// averaged over windows and channels. Deliberately naive: no filtering, no shared code.
double direct_ssim(const cv::Mat& a, const cv::Mat& b, double peak) {
    const int n = 11;
    double g[n], sum = 0;
    for (int i = 0; i < n; ++i) sum += g[i] = std::exp(-double((i - 5) * (i - 5)) / (2 * 1.5 * 1.5));
    for (double& v : g) v /= sum;
    const double c1 = std::pow(0.01 * peak, 2), c2 = std::pow(0.03 * peak, 2);
    auto value = [](const cv::Mat& m, int y, int x, int c) {
        return m.depth() == CV_8U ? double(m.ptr<uchar>(y)[x * m.channels() + c])
                                  : double(m.ptr<float>(y)[x * m.channels() + c]);
    };
    double total = 0;
    int count = 0;
    for (int c = 0; c < a.channels(); ++c)
        for (int y0 = 0; y0 + n <= a.rows; ++y0)
            for (int x0 = 0; x0 + n <= a.cols; ++x0) {
                double mx = 0, my = 0, sxx = 0, syy = 0, sxy = 0;
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j) {
                        const double w = g[i] * g[j];
                        const double x = value(a, y0 + i, x0 + j, c), y = value(b, y0 + i, x0 + j, c);
                        mx += w * x;
                        my += w * y;
                        sxx += w * x * x;
                        syy += w * y * y;
                        sxy += w * x * y;
                    }
                sxx -= mx * mx;
                syy -= my * my;
                sxy -= mx * my;
                total += ((2 * mx * my + c1) * (2 * sxy + c2)) /
                         ((mx * mx + my * my + c1) * (sxx + syy + c2));
                ++count;
            }
    return total / count;
}

// 8-bit quantisation written out by hand: round(clamp(v, 0, 1) * 255).
cv::Mat quantised(const cv::Mat& rgb) {
    cv::Mat out(rgb.size(), CV_8UC3);
    for (int y = 0; y < rgb.rows; ++y)
        for (int x = 0; x < rgb.cols; ++x)
            for (int c = 0; c < 3; ++c)
                out.at<cv::Vec3b>(y, x)[c] =
                    uchar(std::nearbyint(std::clamp(rgb.at<cv::Vec3f>(y, x)[c], 0.0f, 1.0f) * 255.0));
    return out;
}

cv::Mat degraded(const cv::Mat& rgb) {
    cv::Mat blurred;
    cv::GaussianBlur(rgb, blurred, cv::Size(5, 5), 1.2);
    return blurred;
}

} // namespace

TEST(ImageMetrics, PsnrMatchesOpenCv) {
    const cv::Mat a = ff::test::test_picture(64, 48, 1), b = degraded(a);
    const cv::Mat a8 = quantised(a), b8 = quantised(b);
    EXPECT_NEAR(ff::metrics::psnr(a8, b8), cv::PSNR(a8, b8), 1e-9);
    EXPECT_NEAR(ff::metrics::psnr(a, b), cv::PSNR(a, b, 1.0), 1e-9);
    EXPECT_NEAR(ff::metrics::psnr(a8, a8), cv::PSNR(a8, a8), 1e-9); // identical: finite, as OpenCV
}

TEST(ImageMetrics, MseOnTheUnitScale) {
    const cv::Mat a = ff::test::test_picture(16, 8, 1), b = degraded(a);
    double sum = 0;
    for (int y = 0; y < a.rows; ++y)
        for (int x = 0; x < a.cols; ++x)
            for (int c = 0; c < 3; ++c) {
                const double d = a.at<cv::Vec3f>(y, x)[c] - b.at<cv::Vec3f>(y, x)[c];
                sum += d * d;
            }
    EXPECT_NEAR(ff::metrics::mse(a, b), sum / (16 * 8 * 3), 1e-12);
    const cv::Mat a8 = quantised(a), b8 = quantised(b);
    EXPECT_NEAR(ff::metrics::mse(a8, b8), cv::norm(a8, b8, cv::NORM_L2SQR) / (16 * 8 * 3) / (255.0 * 255.0), 1e-12);
}

TEST(ImageMetrics, SsimMatchesADirectComputation) {
    const cv::Mat a = ff::test::test_picture(40, 27, 3), b = degraded(a);
    const cv::Mat a8 = quantised(a), b8 = quantised(b);
    const double expected8 = direct_ssim(a8, b8, 255.0);
    EXPECT_NEAR(ff::metrics::ssim(a8, b8), expected8, 1e-9);
    EXPECT_NEAR(ff::metrics::ssim(a, b), direct_ssim(a, b, 1.0), 1e-6);
    EXPECT_GT(expected8, 0.3); // a blur keeps structure...
    EXPECT_LT(expected8, 0.99); // ...but not all of it
    EXPECT_NEAR(ff::metrics::ssim(a8, a8), 1.0, 1e-12);
}

TEST(ImageMetrics, TiledSsimEqualsTheDirectComputationAcrossTileEdges) {
    // 300x270 valid centres span 3x3 tiles of 128 with ragged last tiles.
    const cv::Mat a = ff::test::test_picture(310, 280, 4), b = degraded(a);
    const cv::Mat a8 = quantised(a), b8 = quantised(b);
    size_t last_done = 0, last_total = 0, calls = 0;
    const double tiled = ff::metrics::ssim(a8, b8, [&](size_t done, size_t total) {
        EXPECT_GT(done, last_done);
        last_done = done, last_total = total, ++calls;
    });
    EXPECT_NEAR(tiled, direct_ssim(a8, b8, 255.0), 1e-9);
    EXPECT_GE(calls, 1u);
    EXPECT_EQ(last_done, last_total); // the check saw the whole image done
}

TEST(ImageMetrics, SsimStopsWhenTheCheckThrows) {
    const cv::Mat a = quantised(ff::test::test_picture(2100, 1100, 5));
    size_t calls = 0;
    EXPECT_THROW(ff::metrics::ssim(a, a, [&](size_t, size_t) {
                     ++calls;
                     throw std::runtime_error("stop");
                 }),
                 std::runtime_error);
    EXPECT_EQ(calls, 1u); // the first batch of tiles, not the whole image
}

TEST(ImageMetrics, SsimOfTinyImagesIsDefined) {
    const cv::Mat a = quantised(ff::test::test_picture(6, 5, 1));
    EXPECT_NEAR(ff::metrics::ssim(a, a), 1.0, 1e-12);
    EXPECT_TRUE(std::isfinite(ff::metrics::ssim(a, quantised(ff::test::test_picture(6, 5, 2)))));
}

TEST(ImageMetrics, CompareQuantisesAsSavedFiles) {
    const cv::Mat a = ff::test::test_picture(50, 30, 1), b = degraded(a);
    const ff::metrics::ImageMetrics q = ff::metrics::compare(a, b, 8);
    EXPECT_NEAR(q.psnr, cv::PSNR(quantised(a), quantised(b)), 1e-9);
    EXPECT_NEAR(q.ssim, direct_ssim(quantised(a), quantised(b), 255.0), 1e-9);
    const ff::metrics::ImageMetrics f = ff::metrics::compare(a, b, 0);
    EXPECT_NEAR(f.psnr, cv::PSNR(a, b, 1.0), 1e-9);
    EXPECT_NE(q.psnr, f.psnr);
}

TEST(ImageMetrics, MismatchedImagesAreRefused) {
    EXPECT_THROW(ff::metrics::psnr(cv::Mat::zeros(4, 4, CV_8UC3), cv::Mat::zeros(4, 5, CV_8UC3)), std::invalid_argument);
    EXPECT_THROW(ff::metrics::ssim(cv::Mat::zeros(4, 4, CV_8UC3), cv::Mat::zeros(4, 4, CV_32FC3)), std::invalid_argument);
}

TEST(MetricsNode, JsonMatchesIndependentNumbers) {
    const cv::Mat reference = ff::test::test_picture(48, 36, 8), image = degraded(reference);
    FakeRun run(ff::test::core_plugin().op("Metrics"));
    run.input("reference", reference).input("image", image);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const auto json = nlohmann::json::parse(run.output_text("json"));
    const cv::Mat r8 = quantised(reference), i8 = quantised(image);
    EXPECT_NEAR(json.at("psnr").get<double>(), cv::PSNR(r8, i8), 1e-9);
    EXPECT_NEAR(json.at("ssim").get<double>(), direct_ssim(r8, i8, 255.0), 1e-9);
    EXPECT_NEAR(json.at("mse").get<double>(), cv::norm(r8, i8, cv::NORM_L2SQR) / r8.total() / 3 / 65025.0, 1e-12);
    EXPECT_EQ(json.at("quantized").get<bool>(), true);
    EXPECT_EQ(json.at("width").get<int>(), 48);

    run.param("quantize", ff::test::ParamValue(false));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    EXPECT_NEAR(nlohmann::json::parse(run.output_text("json")).at("psnr").get<double>(),
                cv::PSNR(reference, image, 1.0), 1e-9);
}

// The check runs before SSIM too: after quantising each image and after the MSE, so a cancel
// is answered before the tiles begin; the node passes it on as progress and cancellation.
TEST(ImageMetrics, CompareChecksBetweenItsWholeImagePasses) {
    const cv::Mat a = ff::test::test_picture(64, 48, 3);
    std::vector<std::pair<size_t, size_t>> calls;
    EXPECT_THROW(ff::metrics::compare(a, a, 8,
                                      [&](size_t done, size_t total) {
                                          calls.emplace_back(done, total);
                                          if (calls.size() == 2) throw std::runtime_error("stop");
                                      }),
                 std::runtime_error);
    EXPECT_EQ(calls, (std::vector<std::pair<size_t, size_t>>{{0, 1}, {0, 1}})); // both quantised, no SSIM yet
}

TEST(MetricsNode, ShowsProgressAndStopsAtACancel) {
    const cv::Mat reference = ff::test::test_picture(1200, 900, 8), image = degraded(reference);
    FakeRun run(ff::test::core_plugin().op("Metrics"));
    run.input("reference", reference).input("image", image);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    EXPECT_GT(run.progress_calls(), 2u);
    int parts = 0;
    run.on_progress([&](uint64_t, uint64_t, const std::string& detail) { return detail == "SSIM" && ++parts == 1; });
    EXPECT_EQ(run.execute(), FF_CANCELLED);
    EXPECT_EQ(parts, 1);
}

TEST(MetricsNode, SizeMismatchNamesBothSizes) {
    FakeRun run(ff::test::core_plugin().op("Metrics"));
    run.input("reference", ff::test::test_picture(10, 8)).input("image", ff::test::test_picture(8, 10));
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("8x10"), std::string::npos) << run.error();
    EXPECT_NE(run.error().find("10x8"), std::string::npos) << run.error();
}

// The error map computed directly with OpenCV: |a - b| per channel, the channels' mean on the
// [0, 1] scale, scaled to 8 bits, through COLORMAP_INFERNO.
cv::Mat direct_error_map(const cv::Mat& a8, const cv::Mat& b8, double scale) {
    cv::Mat diff, summed, levels, bgr, rgb;
    cv::absdiff(a8, b8, diff);
    diff.convertTo(diff, CV_32F);
    cv::transform(diff, summed, cv::Matx13f(1.f / 3 / 255, 1.f / 3 / 255, 1.f / 3 / 255));
    summed.convertTo(levels, CV_8U, 255.0 / scale);
    cv::applyColorMap(levels, bgr, cv::COLORMAP_INFERNO);
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

TEST(ErrorMapNode, MatchesADirectOpenCvComputation) {
    const cv::Mat reference = ff::test::test_picture(64, 40, 9), image = degraded(reference);
    FakeRun run(ff::test::core_plugin().op("ErrorMap"));
    run.input("reference", reference).input("image", image).param("scale", ff::test::ParamValue(0.05));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const cv::Mat expected = direct_error_map(quantised(reference), quantised(image), 0.05);
    const cv::Mat got = quantised(run.output_mat("image"));
    ASSERT_EQ(got.size(), expected.size());
    cv::Mat diff;
    cv::absdiff(got, expected, diff);
    double worst = 0;
    cv::minMaxLoc(diff.reshape(1), nullptr, &worst);
    // A level may round the other way where the scaled error lies on a half level (float sums in
    // another order): at most one colour step there, and exact almost everywhere.
    EXPECT_LE(worst, 8.0);
    cv::Mat differs;
    cv::transform(diff, differs, cv::Matx13f(1, 1, 1));
    EXPECT_LE(cv::countNonZero(differs), int(got.total() / 100));
    // Somewhere the blur moved a pixel a lot: the map is not uniformly dark.
    double brightest = 0;
    cv::minMaxLoc(got.reshape(1), nullptr, &brightest);
    EXPECT_GT(brightest, 200.0);

    const auto json = nlohmann::json::parse(run.output_text("json"));
    cv::Mat d;
    cv::absdiff(quantised(reference), quantised(image), d);
    const cv::Scalar m = cv::mean(d);
    EXPECT_NEAR(json.at("mean_error").get<double>(), (m[0] + m[1] + m[2]) / 3 / 255.0, 1e-5);
    EXPECT_NEAR(json.at("scale").get<double>(), 0.05, 1e-7);
}

TEST(ErrorMapNode, GrayMapIsTheErrorOverTheScaleAndIdenticalImagesAreBlack) {
    const cv::Mat reference = ff::test::test_picture(20, 16, 3), image = degraded(reference);
    FakeRun run(ff::test::core_plugin().op("ErrorMap"));
    run.input("reference", reference).input("image", image).param("colour", ff::test::ParamValue(false))
        .param("scale", ff::test::ParamValue(0.1)).param("quantize", ff::test::ParamValue(false));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const cv::Mat got = run.output_mat("image");
    for (int y = 0; y < got.rows; y += 5)
        for (int x = 0; x < got.cols; x += 3) {
            const cv::Vec3f a = reference.at<cv::Vec3f>(y, x), b = image.at<cv::Vec3f>(y, x);
            const float error = (std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2])) / 3;
            EXPECT_NEAR(got.at<cv::Vec3f>(y, x)[1], std::min(error / 0.1f, 1.f), 1e-5);
        }

    FakeRun same(ff::test::core_plugin().op("ErrorMap"));
    same.input("reference", reference).input("image", reference);
    ASSERT_EQ(same.execute(), FF_OK) << same.error();
    // Every pixel has the colour of zero error (inferno starts at a near-black blue).
    const cv::Mat none = quantised(same.output_mat("image"));
    const cv::Vec3b zero = direct_error_map(cv::Mat::zeros(1, 1, CV_8UC3), cv::Mat::zeros(1, 1, CV_8UC3), 0.1).at<cv::Vec3b>(0, 0);
    cv::Mat other;
    cv::inRange(none, zero, zero, other);
    EXPECT_EQ(cv::countNonZero(other), int(none.total()));
    EXPECT_LT(zero[0] + zero[1] + zero[2], 12);
}

TEST(ErrorMapNode, SizeMismatchNamesBothSizes) {
    FakeRun run(ff::test::core_plugin().op("ErrorMap"));
    run.input("reference", ff::test::test_picture(10, 8)).input("image", ff::test::test_picture(8, 10));
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("8x10"), std::string::npos) << run.error();
}

TEST(WriteJson, WritesPrettyJsonAtomically) {
    ScratchDir dir;
    FakeRun run(ff::test::core_plugin().op("WriteJson"));
    run.input_blob("json", R"({"psnr":26.5,"ssim":0.8})").param("path", dir.file("out/metrics.json"));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const std::string text = ff::test::read_bytes(dir.file("out/metrics.json"));
    EXPECT_EQ(nlohmann::json::parse(text).at("psnr").get<double>(), 26.5);
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(run.output_text("json"), R"({"psnr":26.5,"ssim":0.8})");
}

TEST(WriteJson, InvalidJsonWritesNothing) {
    ScratchDir dir;
    FakeRun run(ff::test::core_plugin().op("WriteJson"));
    run.input_blob("json", "{not json").param("path", dir.file("metrics.json"));
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("not valid JSON"), std::string::npos) << run.error();
    EXPECT_TRUE(ff::test::folder_entries(dir.path()).empty());
}

TEST(ImageMetrics, SixteenBitSourcesAreScoredOnSixteenBitValues) {
    const cv::Mat a = ff::test::test_picture(50, 30, 1), b = degraded(a);
    const ff::metrics::ImageMetrics m = ff::metrics::compare(a, b, 16);
    cv::Mat a16, b16;
    a.convertTo(a16, CV_16U, 65535.0);
    b.convertTo(b16, CV_16U, 65535.0);
    EXPECT_NEAR(m.psnr, cv::PSNR(a16, b16, 65535.0), 1e-9);
    EXPECT_NE(m.psnr, ff::metrics::compare(a, b, 8).psnr);
    EXPECT_EQ(ff::metrics::metrics_bits(0), 8u);
    EXPECT_EQ(ff::metrics::metrics_bits(16), 16u);
}

TEST(ImageMetrics, IdenticalImagesAreFlaggedAndTheNodeWritesNullPsnr) {
    const cv::Mat a = ff::test::test_picture(1, 1, 3);
    EXPECT_TRUE(ff::metrics::compare(a, a, 8).identical);
    EXPECT_FALSE(ff::metrics::compare(a, cv::Mat(a * 0.5), 8).identical);
    FakeRun run(ff::test::core_plugin().op("Metrics"));
    run.input("reference", a).input("image", a);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const nlohmann::json j = nlohmann::json::parse(run.output_text("json"));
    EXPECT_TRUE(j["psnr"].is_null()) << j.dump();
    EXPECT_EQ(j["identical"], true);
    EXPECT_TRUE(std::isfinite(j["ssim"].get<double>()));
    EXPECT_EQ(j["computed_on"], "8-bit values");
}
