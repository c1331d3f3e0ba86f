// Levels, Invert, Normalize and Threshold against OpenCV called directly on 8-bit, 16-bit and
// float samples, gray, RGB and RGBA (alpha is kept as it is).
#include "depth_cases.hpp"
#include "fake_host.hpp"
#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

#include <cmath>

using ff::test::FakeRun;
using ff::test::full_scale;
using ff::test::kDepths;
using ff::test::tolerance;
using ff::test::on_colour;

TEST(Levels, BrightnessAndContrastMatchConvertToAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(13, 9, channels, d.depth);
            const double s = full_scale(d.depth);
            const cv::Mat expected = on_colour(in, [&](const cv::Mat& colour) {
                cv::Mat out;
                colour.convertTo(out, -1, 1.4, (0.5 - 0.5 * 1.4 + 0.05) * s); // saturates at integer depths
                return out;
            });
            const cv::Mat out = ff::test::run_at_depth("Levels", in, [](FakeRun& run) {
                run.param("contrast", 1.4).param("brightness", 0.05);
            });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);
        }
}

TEST(Levels, BlackWhiteGammaAndOutputRangeAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(13, 9, channels, d.depth, 2);
            const double s = full_scale(d.depth);
            // Independently: clip((x - 0.1) / 0.7) ^ (1 / 2.2), then onto [0.2, 0.9], with OpenCV's calls.
            const cv::Mat expected = on_colour(in, [&](const cv::Mat& colour) {
                cv::Mat v, out;
                colour.convertTo(v, CV_64F, 1.0 / s);
                v.convertTo(v, -1, 1.0 / 0.7, -0.1 / 0.7);
                cv::threshold(v, v, 1.0, 1.0, cv::THRESH_TRUNC);
                cv::threshold(v, v, 0.0, 0.0, cv::THRESH_TOZERO);
                cv::pow(v, 1.0 / 2.2, v);
                v.convertTo(v, -1, 0.7, 0.2);
                v.convertTo(out, colour.depth(), s);
                return out;
            });
            const cv::Mat out = ff::test::run_at_depth("Levels", in, [](FakeRun& run) {
                run.param("black", 0.1).param("white", 0.8).param("gamma", 2.2).param("out_black", 0.2).param("out_white", 0.9);
            });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth) + (d.depth == CV_32F ? 1e-5 : 0))
                << ff::test::case_name(d, channels);
        }
}

TEST(Levels, WhiteNotAboveBlackIsAParamErrorAtValidation) {
    FakeRun run(ff::test::core_plugin().op("Levels"));
    run.param("black", 0.6).param("white", 0.6);
    EXPECT_EQ(run.validate(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "white");
    EXPECT_NE(run.error().find("must be above black"), std::string::npos) << run.error();
    EXPECT_THROW(run.param("gamma", 0.0), std::invalid_argument); // below the declared range
}

TEST(Invert, MatchesBitwiseNotAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(11, 8, channels, d.depth);
            const cv::Mat expected = on_colour(in, [&](const cv::Mat& colour) {
                cv::Mat out;
                if (d.depth == CV_32F) cv::subtract(cv::Scalar::all(1.0), colour, out);
                else cv::bitwise_not(colour, out);
                return out;
            });
            const cv::Mat out = ff::test::run_at_depth("Invert", in);
            EXPECT_LE(ff::test::max_sample_diff(out, expected), d.depth == CV_32F ? 1e-6 : 0.0) << ff::test::case_name(d, channels);
        }
}

TEST(Normalize, MatchesCvNormalizeAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            // A dim, low-contrast picture, so the stretch has work to do.
            cv::Mat in = ff::test::picture_at(12, 10, channels, d.depth, 5);
            in = on_colour(in, [&](const cv::Mat& colour) {
                cv::Mat dim;
                colour.convertTo(dim, -1, 0.5, 0.1 * full_scale(d.depth));
                return dim;
            });
            const double s = full_scale(d.depth);
            const cv::Mat expected = on_colour(in, [&](const cv::Mat& colour) {
                cv::Mat out;
                cv::normalize(colour, out, 0.05 * s, 0.95 * s, cv::NORM_MINMAX);
                return out;
            });
            const cv::Mat out = ff::test::run_at_depth("Normalize", in, [](FakeRun& run) { run.param("low", 0.05).param("high", 0.95); });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);

            const cv::Mat per_channel = on_colour(in, [&](const cv::Mat& colour) {
                std::vector<cv::Mat> planes;
                cv::split(colour, planes);
                for (cv::Mat& plane : planes) cv::normalize(plane, plane, 0, s, cv::NORM_MINMAX);
                cv::Mat out;
                cv::merge(planes, out);
                return out;
            });
            const cv::Mat apart = ff::test::run_at_depth("Normalize", in, [](FakeRun& run) { run.param("per_channel", true); });
            EXPECT_LE(ff::test::max_sample_diff(apart, per_channel), tolerance(d.depth)) << ff::test::case_name(d, channels);
        }
    // L2: the colour values scaled to norm 3.
    const cv::Mat in = ff::test::picture_at(8, 6, 3, CV_32F);
    const cv::Mat out = ff::test::run_at_depth("Normalize", in, [](FakeRun& run) { run.param("norm", "l2").param("high", 3.0); });
    EXPECT_NEAR(cv::norm(out, cv::NORM_L2), 3.0, 1e-4);
    EXPECT_NEAR(cv::norm(out - in * (3.0 / cv::norm(in, cv::NORM_L2)), cv::NORM_INF), 0.0, 1e-6);
}

TEST(Normalize, HighBelowLowIsAParamErrorAtValidation) {
    FakeRun run(ff::test::core_plugin().op("Normalize"));
    run.param("low", 0.8).param("high", 0.2);
    EXPECT_EQ(run.validate(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "high");
    EXPECT_NE(run.error().find("must not be below low"), std::string::npos) << run.error();
}

TEST(Threshold, FixedLevelMatchesCvThresholdAtEveryDepth) {
    const std::pair<const char*, int> types[] = {{"binary", cv::THRESH_BINARY}, {"binary_inv", cv::THRESH_BINARY_INV},
                                                 {"truncate", cv::THRESH_TRUNC}, {"to_zero", cv::THRESH_TOZERO},
                                                 {"to_zero_inv", cv::THRESH_TOZERO_INV}};
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4})
            for (const auto& [name, type] : types) {
                const cv::Mat in = ff::test::picture_at(13, 9, channels, d.depth, 6);
                const double s = full_scale(d.depth);
                // 8-bit: level 100 of 255; 16-bit: 25700 of 65535; the same fraction for floats.
                const double level = 100.0 / 255.0;
                const cv::Mat expected = on_colour(in, [&](const cv::Mat& colour) {
                    cv::Mat out;
                    cv::threshold(colour, out, level * s, 0.75 * s, type);
                    return out;
                });
                const cv::Mat out = ff::test::run_at_depth("Threshold", in, [&](FakeRun& run) {
                    run.param("threshold", level).param("max", 0.75).param("type", name);
                });
                EXPECT_LE(ff::test::max_sample_diff(out, expected), d.depth == CV_32F ? 1e-6 : 0.0)
                    << ff::test::case_name(d, channels) << " " << name;
            }
}

TEST(Threshold, OtsuAndTriangleFindOpenCvsLevel) {
    for (const auto& [method, flag] : {std::pair<const char*, int>{"otsu", cv::THRESH_OTSU}, {"triangle", cv::THRESH_TRIANGLE}}) {
        const cv::Mat in = ff::test::picture_at(24, 18, 1, CV_8U, 9);
        cv::Mat expected;
        const double level = cv::threshold(in, expected, 0, 255, cv::THRESH_BINARY | flag);
        FakeRun run(ff::test::core_plugin().op("Threshold"));
        run.input("image", ff::test::image_of(in)).param("method", method);
        ASSERT_EQ(run.execute(), FF_OK) << run.error();
        EXPECT_EQ(ff::test::max_sample_diff(ff::test::samples_at(run.output_mat("image"), CV_8U), expected), 0.0) << method;
        ASSERT_FALSE(run.logs().empty());
        char text[16];
        std::snprintf(text, sizeof text, "%.4f", level / 255.0);
        EXPECT_NE(run.logs().back().find(text), std::string::npos) << run.logs().back();
        // 16-bit and float: the level found on the values rounded to 8 bits, applied to the values.
        for (int depth : {CV_16U, CV_32F}) {
            const cv::Mat deep = ff::test::picture_at(24, 18, 1, depth, 9);
            cv::Mat eight, ignored, want;
            deep.convertTo(eight, CV_8U, 255.0 / full_scale(depth));
            const double found = cv::threshold(eight, ignored, 0, 255, flag); // a whole 8-bit level
            cv::threshold(deep, want, found * full_scale(depth) / 255.0, full_scale(depth), cv::THRESH_BINARY);
            const cv::Mat got = ff::test::run_at_depth("Threshold", deep, [&](FakeRun& r) { r.param("method", method); });
            EXPECT_LE(ff::test::max_sample_diff(got, want), depth == CV_32F ? 1e-6 : 0.0) << method << " " << depth;
        }
    }
}
