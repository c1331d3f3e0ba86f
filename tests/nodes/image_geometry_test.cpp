// Pad, Rotate (any angle), WarpAffine and WarpPerspective against OpenCV called directly on 8-bit,
// 16-bit and float samples, gray, RGB and RGBA.
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

TEST(Pad, MatchesCopyMakeBorderAtEveryDepth) {
    const std::pair<const char*, int> borders[] = {{"constant", cv::BORDER_CONSTANT}, {"reflect", cv::BORDER_REFLECT},
                                                   {"reflect101", cv::BORDER_REFLECT_101}, {"wrap", cv::BORDER_WRAP},
                                                   {"replicate", cv::BORDER_REPLICATE}};
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4})
            for (const auto& [name, flag] : borders) {
                const cv::Mat in = ff::test::picture_at(9, 7, channels, d.depth);
                const cv::Mat out = ff::test::run_at_depth("Pad", in, [&](FakeRun& run) {
                    run.param("left", 3).param("right", 12).param("top", 1).param("bottom", 2).param("border", name).param("fill", 0.25);
                });
                cv::Mat expected;
                cv::copyMakeBorder(in, expected, 1, 2, 3, 12, flag, cv::Scalar::all(0.25 * full_scale(d.depth)));
                EXPECT_EQ(ff::test::max_sample_diff(out, expected), 0.0) << ff::test::case_name(d, channels) << " " << name;
            }
}

TEST(Rotate, AnyAngleMatchesWarpAffineAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(21, 13, channels, d.depth);
            // Clockwise 30 degrees, grown to hold the whole image: ceil(21 cos + 13 sin) x ceil(21 sin + 13 cos).
            const cv::Size size(25, 22);
            cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(10.0f, 6.0f), -30.0, 1.0);
            m.at<double>(0, 2) += (25 - 21) / 2.0;
            m.at<double>(1, 2) += (22 - 13) / 2.0;
            cv::Mat expected;
            cv::warpAffine(in, expected, m, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
            const cv::Mat out = ff::test::run_at_depth("Rotate", in, [](FakeRun& run) { run.param("angle", 30.0); });
            ASSERT_EQ(out.size(), size) << ff::test::case_name(d, channels);
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);

            // Same size, cubic, replicated edges, counter-clockwise.
            cv::Mat same = cv::getRotationMatrix2D(cv::Point2f(10.0f, 6.0f), 45.0, 1.0);
            cv::warpAffine(in, expected, same, in.size(), cv::INTER_CUBIC, cv::BORDER_REPLICATE);
            const cv::Mat kept = ff::test::run_at_depth("Rotate", in, [](FakeRun& run) {
                run.param("angle", -45.0).param("expand", false).param("interpolation", "cubic").param("border", "replicate");
            });
            EXPECT_LE(ff::test::max_sample_diff(kept, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);
        }
}

TEST(Rotate, QuarterTurnsAreExactPixelMoves) {
    const cv::Mat in = ff::test::picture_at(17, 11, 4, CV_32F, 7);
    const std::pair<double, int> turns[] = {{90.0, cv::ROTATE_90_CLOCKWISE}, {180.0, cv::ROTATE_180},
                                            {270.0, cv::ROTATE_90_COUNTERCLOCKWISE}, {-90.0, cv::ROTATE_90_COUNTERCLOCKWISE}};
    for (const auto& [angle, code] : turns) {
        cv::Mat expected;
        cv::rotate(in, expected, code);
        const cv::Mat out = ff::test::run_at_depth("Rotate", in, [&](FakeRun& run) { run.param("angle", angle); });
        ASSERT_EQ(out.size(), expected.size()) << angle;
        EXPECT_EQ(ff::test::max_sample_diff(out, expected), 0.0) << angle;
    }
    EXPECT_EQ(ff::test::max_sample_diff(ff::test::run_at_depth("Rotate", in, [](FakeRun& run) { run.param("angle", 360.0); }), in), 0.0);
}

TEST(WarpAffine, MatrixAndPointsMatchOpenCvAtEveryDepth) {
    const cv::Point2f from[] = {{0, 0}, {15, 0}, {0, 10}}, to[] = {{2, 1}, {14, 4}, {1, 12}};
    const cv::Mat by_points = cv::getAffineTransform(from, to);
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(16, 11, channels, d.depth, 3);
            cv::Mat expected;
            const cv::Matx23d m(0.9, 0.2, 1.5, -0.1, 1.1, -2.0);
            cv::warpAffine(in, expected, m, cv::Size(20, 9), cv::INTER_LINEAR, cv::BORDER_REFLECT);
            const cv::Mat out = ff::test::run_at_depth("WarpAffine", in, [](FakeRun& run) {
                run.param("matrix", "0.9 0.2 1.5, -0.1 1.1 -2").param("width", 20).param("height", 9).param("border", "reflect");
            });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);

            cv::warpAffine(in, expected, by_points, in.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar::all(full_scale(d.depth)));
            const cv::Mat pointed = ff::test::run_at_depth("WarpAffine", in, [](FakeRun& run) {
                run.param("from", "0,0 15,0 0,10").param("to", "2,1 14,4 1,12").param("interpolation", "nearest").param("fill", 1.0);
            });
            EXPECT_EQ(ff::test::max_sample_diff(pointed, expected), 0.0) << ff::test::case_name(d, channels);
        }
}

TEST(WarpPerspective, FourPointsMatchOpenCvAtEveryDepth) {
    const cv::Point2f from[] = {{1, 1}, {18, 2}, {17, 12}, {2, 13}}, to[] = {{0, 0}, {19, 0}, {19, 14}, {0, 14}};
    const cv::Mat m = cv::getPerspectiveTransform(from, to);
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(20, 15, channels, d.depth, 4);
            cv::Mat expected;
            cv::warpPerspective(in, expected, m, in.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            const cv::Mat out = ff::test::run_at_depth("WarpPerspective", in, [](FakeRun& run) {
                run.param("from", "1,1 18,2 17,12 2,13").param("to", "0,0 19,0 19,14 0,14");
            });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);
        }
    // The same map given as its matrix.
    const cv::Mat in = ff::test::picture_at(20, 15, 3, CV_32F, 4);
    std::string numbers;
    for (int i = 0; i < 9; ++i) numbers += std::to_string(m.at<double>(i / 3, i % 3)) + " ";
    cv::Mat expected;
    cv::warpPerspective(in, expected, cv::Mat(3, 3, CV_64F, cv::Scalar(0)) + m, in.size());
    const cv::Mat out = ff::test::run_at_depth("WarpPerspective", in, [&](FakeRun& run) { run.param("matrix", numbers.c_str()); });
    EXPECT_LE(ff::test::max_sample_diff(out, expected), 1e-3); // the matrix printed to 6 decimals
}

TEST(Warp, BadMatrixOrPointsAreParamErrorsAtValidation) {
    struct Case {
        const char* op;
        const char* param;
        const char* value;
        const char* blamed;
        const char* says;
    };
    const Case cases[] = {
        {"WarpAffine", "matrix", "1 0 0 0 1", "matrix", "needs 6 numbers"},
        {"WarpAffine", "matrix", "1 0 x 0 1 0", "matrix", "'x'"},
        {"WarpAffine", "matrix", "1 2 0 2 4 0", "matrix", "not invertible"},
        {"WarpAffine", "from", "0,0 1,0 2,0", "to", "needs 3 points"}, // `to` left empty
        {"WarpPerspective", "from", "0,0 1,0 1,1", "from", "needs 4 points"},
        {"WarpPerspective", "matrix", "", "matrix", "give matrix"},
    };
    for (const Case& c : cases) {
        FakeRun run(ff::test::core_plugin().op(c.op));
        run.param(c.param, c.value);
        if (std::string(c.param) == "from" && std::string(c.op) == "WarpPerspective") run.param("to", "0,0 1,0 1,1 0,1");
        EXPECT_EQ(run.validate(), FF_ERROR) << c.op << " " << c.value;
        EXPECT_EQ(run.error_param(), c.blamed) << c.op << " " << c.value;
        EXPECT_NE(run.error().find(c.says), std::string::npos) << run.error();
    }
    FakeRun both(ff::test::core_plugin().op("WarpAffine"));
    both.param("matrix", "1 0 0 0 1 0").param("from", "0,0 1,0 0,1").param("to", "0,0 1,0 0,1");
    EXPECT_EQ(both.validate(), FF_ERROR);
    EXPECT_NE(both.error().find("not both"), std::string::npos) << both.error();
    FakeRun collinear(ff::test::core_plugin().op("WarpAffine"));
    collinear.param("from", "0,0 1,1 2,2").param("to", "0,0 1,0 0,1");
    EXPECT_EQ(collinear.validate(), FF_ERROR);
    EXPECT_EQ(collinear.error_param(), "from");
}

TEST(Pad, AnOutputOverTheSideLimitIsAParamError) {
    FakeRun run(ff::test::core_plugin().op("Pad"));
    run.input("image", ff::test::test_picture(10, 8)).param("left", 40000).param("right", 30000);
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "left");
    EXPECT_NE(run.error().find("70010 pixels wide, over the limit of 65536"), std::string::npos) << run.error();
}
