// Blend, Composite, SplitChannels, MergeChannels and DrawText against OpenCV called directly on
// 8-bit, 16-bit and float samples, gray, RGB and RGBA.
#include "depth_cases.hpp"
#include "fake_host.hpp"
#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

using ff::test::FakeRun;
using ff::test::full_scale;
using ff::test::kDepths;
using ff::test::tolerance;

namespace {

// A one-channel mask of `depth` samples: a ramp from clear (left) to opaque (right).
cv::Mat ramp_mask(cv::Size size, int depth) {
    cv::Mat mask(size, CV_32F);
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x) mask.at<float>(y, x) = float(x) / float(size.width - 1);
    return ff::test::samples_at(mask, depth);
}

// Weights for cv::blendLinear from samples of any depth: the samples on the [0, 1] scale.
cv::Mat weights_of(const cv::Mat& samples) {
    cv::Mat w;
    samples.convertTo(w, CV_32F, 1.0 / full_scale(samples.depth()));
    return w;
}

// cv::blendLinear on the samples; it has 8-bit and float paths only, so 16-bit samples go
// through its float path as they are (0-65535) and are rounded back.
cv::Mat blend_linear(const cv::Mat& a, const cv::Mat& b, const cv::Mat& w1, const cv::Mat& w2) {
    cv::Mat out;
    if (a.depth() != CV_16U) {
        cv::blendLinear(a, b, w1, w2, out);
        return out;
    }
    cv::Mat fa, fb;
    a.convertTo(fa, CV_32F);
    b.convertTo(fb, CV_32F);
    cv::blendLinear(fa, fb, w1, w2, out);
    out.convertTo(out, CV_16U);
    return out;
}

} // namespace

TEST(Blend, EveryModeMatchesOpenCvArithmeticAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat a = ff::test::picture_at(12, 9, channels, d.depth, 1), b = ff::test::picture_at(12, 9, channels, d.depth, 2);
            const double s = full_scale(d.depth);
            cv::Mat inv_a, inv_b, screen;
            cv::subtract(cv::Scalar::all(s), a, inv_a);
            cv::subtract(cv::Scalar::all(s), b, inv_b);
            cv::multiply(inv_a, inv_b, screen, 1.0 / s);
            cv::subtract(cv::Scalar::all(s), screen, screen);
            std::vector<std::pair<const char*, cv::Mat>> modes;
            cv::Mat m;
            cv::add(a, b, m), modes.emplace_back("add", m.clone());
            cv::subtract(a, b, m), modes.emplace_back("subtract", m.clone());
            cv::multiply(a, b, m, 1.0 / s), modes.emplace_back("multiply", m.clone());
            cv::absdiff(a, b, m), modes.emplace_back("difference", m.clone());
            cv::max(a, b, m), modes.emplace_back("lighten", m.clone());
            cv::min(a, b, m), modes.emplace_back("darken", m.clone());
            modes.emplace_back("screen", screen);
            for (const auto& [mode, expected] : modes) {
                FakeRun run(ff::test::core_plugin().op("Blend"));
                run.input("image", ff::test::image_of(a)).input("top", ff::test::image_of(b)).param("mode", mode);
                ASSERT_EQ(run.execute(), FF_OK) << run.error();
                EXPECT_LE(ff::test::max_sample_diff(ff::test::samples_at(run.output_mat("image"), d.depth), expected), tolerance(d.depth))
                    << ff::test::case_name(d, channels) << " " << mode;
            }
            // mix at opacity 0.3: cv::addWeighted; through a mask: cv::blendLinear.
            cv::Mat mixed, masked;
            cv::addWeighted(a, 0.7, b, 0.3, 0.0, mixed);
            FakeRun mix(ff::test::core_plugin().op("Blend"));
            mix.input("image", ff::test::image_of(a)).input("top", ff::test::image_of(b)).param("opacity", 0.3);
            ASSERT_EQ(mix.execute(), FF_OK) << mix.error();
            EXPECT_LE(ff::test::max_sample_diff(ff::test::samples_at(mix.output_mat("image"), d.depth), mixed), tolerance(d.depth))
                << ff::test::case_name(d, channels) << " mix";
            const cv::Mat mask = ramp_mask(a.size(), d.depth), w = weights_of(mask);
            masked = blend_linear(a, b, 1.0 - w, w); // OpenCV divides by w1 + w2 + 1e-5: within a level
            FakeRun through(ff::test::core_plugin().op("Blend"));
            through.input("image", ff::test::image_of(a)).input("top", ff::test::image_of(b)).input("mask", ff::test::image_of(mask));
            ASSERT_EQ(through.execute(), FF_OK) << through.error();
            EXPECT_LE(ff::test::max_sample_diff(ff::test::samples_at(through.output_mat("image"), d.depth), masked),
                      d.depth == CV_32F ? 1e-4 : 1.0)
                << ff::test::case_name(d, channels) << " mask";
        }
}

TEST(Blend, DifferentSizesAndBadParamsAreRefused) {
    FakeRun run(ff::test::core_plugin().op("Blend"));
    run.input("image", ff::test::test_picture(8, 6)).input("top", ff::test::test_picture(8, 7));
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("input 'top' is 8x7 but 'image' is 8x6"), std::string::npos) << run.error();
    EXPECT_THROW(run.param("opacity", 1.5), std::invalid_argument); // out of the declared range
    EXPECT_THROW(run.param("mode", "overlay"), std::invalid_argument); // not a declared choice
}

TEST(Composite, OverlayAlphaMatchesBlendLinearAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3}) {
            const cv::Mat base = ff::test::picture_at(20, 14, channels, d.depth, 1);
            const cv::Mat overlay = ff::test::picture_at(9, 7, 4, d.depth, 2); // RGBA, placed partly outside
            FakeRun run(ff::test::core_plugin().op("Composite"));
            run.input("image", ff::test::image_of(base)).input("overlay", ff::test::image_of(overlay)).param("x", 14).param("y", -2).param("opacity", 0.8);
            ASSERT_EQ(run.execute(), FF_OK) << run.error();
            // OpenCV on the samples: the visible 6x5 part of the overlay blended by alpha x 0.8.
            cv::Mat expected = base.clone(), colour, alpha, blended;
            cv::cvtColor(overlay, colour, channels == 1 ? cv::COLOR_RGBA2GRAY : cv::COLOR_RGBA2RGB);
            cv::extractChannel(overlay, alpha, 3);
            const cv::Rect inside(14, 0, 6, 5), from(0, 2, 6, 5);
            const cv::Mat w = weights_of(alpha(from)) * 0.8;
            blended = blend_linear(base(inside), colour(from), 1.0 - w, w);
            blended.copyTo(expected(inside));
            EXPECT_LE(ff::test::max_sample_diff(ff::test::samples_at(run.output_mat("image"), d.depth), expected),
                      d.depth == CV_32F ? 1e-4 : 1.0) << ff::test::case_name(d, channels);
        }
}

TEST(Composite, OverAnRgbaImageThroughAMask) {
    const cv::Mat base = ff::test::picture_at(10, 8, 4, CV_32F, 3), overlay = ff::test::picture_at(10, 8, 3, CV_32F, 4);
    const cv::Mat mask = ramp_mask(base.size(), CV_32F);
    FakeRun run(ff::test::core_plugin().op("Composite"));
    run.input("image", ff::test::image_of(base)).input("overlay", ff::test::image_of(overlay)).input("mask", ff::test::image_of(mask));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const cv::Mat out = run.output_mat("image");
    // Porter-Duff over, pixel by pixel: alpha = w + a (1 - w); colour = (fg w + bg a (1 - w)) / alpha.
    double worst = 0;
    for (int y = 0; y < base.rows; ++y)
        for (int x = 0; x < base.cols; ++x) {
            const cv::Vec4f bg = base.at<cv::Vec4f>(y, x), got = out.at<cv::Vec4f>(y, x);
            const cv::Vec3f fg = overlay.at<cv::Vec3f>(y, x);
            const float w = mask.at<float>(y, x), alpha = w + bg[3] * (1 - w);
            worst = std::max(worst, double(std::abs(got[3] - alpha)));
            for (int c = 0; c < 3; ++c) {
                const float want = alpha > 0 ? (fg[c] * w + bg[c] * bg[3] * (1 - w)) / alpha : bg[c];
                worst = std::max(worst, double(std::abs(got[c] - want)));
            }
        }
    EXPECT_LE(worst, 1e-5);
    FakeRun wrong(ff::test::core_plugin().op("Composite"));
    wrong.input("image", ff::test::image_of(base)).input("overlay", ff::test::image_of(overlay)).input("mask", ff::test::test_picture(4, 4));
    EXPECT_EQ(wrong.execute(), FF_ERROR);
    EXPECT_NE(wrong.error().find("input 'mask' is 4x4 but 'overlay' is 10x8"), std::string::npos) << wrong.error();
    EXPECT_THROW(wrong.param("opacity", -0.1), std::invalid_argument);
}

TEST(Channels, SplitAndMergeMatchCvSplitAndMergeAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(9, 6, channels, d.depth);
            FakeRun split(ff::test::core_plugin().op("SplitChannels"));
            split.input("image", ff::test::image_of(in));
            ASSERT_EQ(split.execute(), FF_OK) << split.error();
            std::vector<cv::Mat> planes;
            cv::split(in, planes);
            if (channels == 1) planes = {planes[0], planes[0], planes[0]};
            if (channels != 4) planes.push_back(cv::Mat(in.size(), CV_MAKETYPE(d.depth, 1), cv::Scalar(full_scale(d.depth))));
            FakeRun merge(ff::test::core_plugin().op("MergeChannels"));
            const char* ports[] = {"red", "green", "blue", "alpha"};
            for (int i = 0; i < 4; ++i) {
                const cv::Mat got = ff::test::samples_at(split.output_mat(ports[i]), d.depth);
                ASSERT_EQ(got.channels(), 1);
                EXPECT_EQ(ff::test::max_sample_diff(got, planes[size_t(i)]), 0.0) << ff::test::case_name(d, channels) << " " << ports[i];
                if (i < 3 || channels == 4) merge.input(ports[i], ff::test::image_of(got));
            }
            ASSERT_EQ(merge.execute(), FF_OK) << merge.error();
            cv::Mat expected;
            cv::merge(std::vector<cv::Mat>(planes.begin(), planes.begin() + (channels == 4 ? 4 : 3)), expected);
            EXPECT_EQ(ff::test::max_sample_diff(ff::test::samples_at(merge.output_mat("image"), d.depth), expected), 0.0)
                << ff::test::case_name(d, channels);
        }
}

TEST(Channels, MergeRefusesAColourInputOrAnotherSize) {
    cv::Mat gray(6, 9, CV_32F, cv::Scalar(0.5));
    FakeRun colour(ff::test::core_plugin().op("MergeChannels"));
    colour.input("red", ff::test::image_of(gray)).input("green", ff::test::test_picture(9, 6)).input("blue", ff::test::image_of(gray));
    EXPECT_EQ(colour.execute(), FF_ERROR);
    EXPECT_NE(colour.error().find("input 'green' has 3 channels"), std::string::npos) << colour.error();
    FakeRun size(ff::test::core_plugin().op("MergeChannels"));
    size.input("red", ff::test::image_of(gray)).input("green", ff::test::image_of(gray)).input("blue", ff::test::image_of(cv::Mat(5, 9, CV_32F, cv::Scalar(0.1))));
    EXPECT_EQ(size.execute(), FF_ERROR);
    EXPECT_NE(size.error().find("input 'blue' is 9x5 but 'red' is 9x6"), std::string::npos) << size.error();
}

TEST(DrawText, HardStrokesMatchPutTextAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(70, 24, channels, d.depth);
            const double s = full_scale(d.depth);
            cv::Mat expected = in.clone();
            // Colour (0.9, 0.2, 0.1); gray images take its luma; RGBA text is opaque.
            const double luma = 0.299 * 0.9 + 0.587 * 0.2 + 0.114 * 0.1;
            const cv::Scalar ink = channels == 1 ? cv::Scalar(luma * s) : cv::Scalar(0.9 * s, 0.2 * s, 0.1 * s, s);
            cv::putText(expected, "Hi 42", cv::Point(3, 18), cv::FONT_HERSHEY_DUPLEX, 0.6, ink, 1, cv::LINE_8);
            const cv::Mat out = ff::test::run_at_depth("DrawText", in, [](FakeRun& run) {
                run.param("text", "Hi 42").param("x", 3).param("y", 18).param("font", "duplex").param("size", 0.6)
                    .param("thickness", 1).param("colour", "0.9, 0.2, 0.1").param("antialias", false);
            });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);
            EXPECT_GT(ff::test::max_sample_diff(out, in), 0.2 * s) << "text was drawn";
        }
}

TEST(DrawText, AntialiasedTextIsPutTextsCoverageMixedIn) {
    const cv::Mat in = ff::test::picture_at(80, 30, 3, CV_8U, 5);
    cv::Mat expected = in.clone();
    cv::putText(expected, "fieldflow", cv::Point(2, 20), cv::FONT_HERSHEY_SIMPLEX, 0.7, cv::Scalar(255, 255, 255), 2, cv::LINE_AA);
    const cv::Mat out = ff::test::run_at_depth("DrawText", in, [](FakeRun& run) {
        run.param("text", "fieldflow").param("x", 2).param("y", 20).param("size", 0.7);
    });
    // OpenCV works out anti-aliased edge coverage itself on each image; the op draws it into a
    // coverage mask first and mixes on floats: edge pixels differ by a few levels, no more.
    EXPECT_LE(ff::test::max_sample_diff(out, expected), 4.0);
    EXPECT_LT(cv::norm(out, expected, cv::NORM_L1) / double(out.total() * 3), 0.5); // a few edge pixels only
    EXPECT_GT(ff::test::max_sample_diff(out, in), 100.0);
}

TEST(DrawText, EmptyTextOrABadColourIsAParamErrorAtValidation) {
    const std::pair<const char*, const char*> cases[] = {{"", "text"}, {"two\nlines", "text"}};
    for (const auto& [text, param] : cases) {
        FakeRun run(ff::test::core_plugin().op("DrawText"));
        run.param("text", text);
        EXPECT_EQ(run.validate(), FF_ERROR);
        EXPECT_EQ(run.error_param(), param);
    }
    FakeRun colour(ff::test::core_plugin().op("DrawText"));
    colour.param("text", "x").param("colour", "1, 0");
    EXPECT_EQ(colour.validate(), FF_ERROR);
    EXPECT_EQ(colour.error_param(), "colour");
    EXPECT_NE(colour.error().find("1 value (gray) or 3"), std::string::npos) << colour.error();
    FakeRun word(ff::test::core_plugin().op("DrawText"));
    word.param("text", "x").param("colour", "red");
    EXPECT_EQ(word.validate(), FF_ERROR);
    EXPECT_EQ(word.error_param(), "colour");
}
