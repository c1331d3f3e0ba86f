// BoxBlur, MedianBlur, BilateralFilter, Denoise, Morphology, Canny, Sobel and Equalize against
// OpenCV called directly on 8-bit, 16-bit and float samples, gray, RGB and RGBA; and where
// OpenCV takes only some depths, the conversion each op documents or its refusal.
#include "depth_cases.hpp"
#include "fake_host.hpp"
#include "test_support.hpp"

#include <opencv2/imgproc.hpp>
#include <opencv2/photo.hpp>

#include <gtest/gtest.h>

using ff::test::FakeRun;
using ff::test::full_scale;
using ff::test::kDepths;
using ff::test::tolerance;
using ff::test::on_colour;

namespace {

// The op's validate (or, with `execute`, its run) fails blaming `param` with `says` in the message.
void expect_param_error(FakeRun& run, const char* param, const char* says, bool execute = false) {
    EXPECT_EQ(execute ? run.execute() : run.validate(), FF_ERROR) << param;
    EXPECT_EQ(run.error_param(), param) << run.error();
    EXPECT_NE(run.error().find(says), std::string::npos) << run.error();
}

// 16-bit or float samples rounded to 8 bits, as the ops that need 8-bit samples round them.
cv::Mat eight_bit(const cv::Mat& samples) {
    cv::Mat out;
    samples.convertTo(out, CV_8U, 255.0 / full_scale(samples.depth()));
    return out;
}

} // namespace

TEST(BoxBlur, MatchesCvBlurAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(15, 11, channels, d.depth);
            cv::Mat expected;
            cv::blur(in, expected, cv::Size(5, 3));
            const cv::Mat out = ff::test::run_at_depth("BoxBlur", in, [](FakeRun& run) { run.param("width", 5).param("height", 3); });
            EXPECT_LE(ff::test::max_sample_diff(out, expected), tolerance(d.depth)) << ff::test::case_name(d, channels);
            EXPECT_GT(ff::test::max_sample_diff(out, in), 0.05 * full_scale(d.depth)); // it really blurred
        }
}

TEST(MedianBlur, MatchesCvMedianBlurAndRefusesLargeSizesBeyond8Bit) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4})
            for (int size : {3, 5, 7}) {
                const cv::Mat in = ff::test::picture_at(15, 11, channels, d.depth);
                FakeRun run(ff::test::core_plugin().op("MedianBlur"));
                run.input("image", ff::test::image_of(in)).param("size", size);
                if (size > 5 && d.depth != CV_8U) {
                    expect_param_error(run, "size", (std::string("this image is ") + d.name).c_str(), true);
                    continue;
                }
                ASSERT_EQ(run.execute(), FF_OK) << run.error();
                cv::Mat expected;
                cv::medianBlur(in, expected, size);
                EXPECT_EQ(ff::test::max_sample_diff(ff::test::samples_at(run.output_mat("image"), d.depth), expected), 0.0)
                    << ff::test::case_name(d, channels) << " size " << size;
            }
    FakeRun even(ff::test::core_plugin().op("MedianBlur"));
    even.param("size", 4);
    expect_param_error(even, "size", "must be odd");
}

TEST(BilateralFilter, MatchesCvBilateralFilter) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(15, 11, channels, d.depth);
            const cv::Mat out = ff::test::run_at_depth("BilateralFilter", in, [](FakeRun& run) {
                run.param("diameter", 5).param("sigma_color", 0.2).param("sigma_space", 3.0);
            });
            // OpenCV's 8-bit filter on the samples; its float one for 16-bit (no 16-bit version) and float.
            const cv::Mat expected = on_colour(in, [&](const cv::Mat& colour) {
                cv::Mat floats, filtered;
                if (d.depth == CV_8U) {
                    cv::bilateralFilter(colour, filtered, 5, 0.2 * 255.0, 3.0);
                    return filtered;
                }
                colour.convertTo(floats, CV_32F, 1.0 / full_scale(d.depth));
                cv::bilateralFilter(floats, filtered, 5, 0.2, 3.0);
                return ff::test::samples_at(filtered, d.depth);
            });
            // Float vs 8-bit weights: OpenCV tabulates the colour weights differently per depth.
            EXPECT_LE(ff::test::max_sample_diff(out, expected), d.depth == CV_8U ? 2.0 : tolerance(d.depth))
                << ff::test::case_name(d, channels);
        }
}

TEST(Denoise, MatchesFastNlMeansAt8And16BitsAndRefusesFloat) {
    for (int channels : {1, 3, 4}) {
        const cv::Mat clean = ff::test::picture_at(16, 12, channels, CV_8U, 2);
        const cv::Mat out8 = ff::test::run_at_depth("Denoise", clean, [](FakeRun& run) { run.param("strength", 12.0).param("search_size", 9); });
        const cv::Mat expected8 = on_colour(clean, [](const cv::Mat& colour) {
            cv::Mat bgr, out;
            if (colour.channels() == 1) {
                cv::fastNlMeansDenoising(colour, out, 12.0f, 7, 9);
                return out;
            }
            cv::cvtColor(colour, bgr, cv::COLOR_RGB2BGR);
            cv::fastNlMeansDenoisingColored(bgr, out, 12.0f, 10.0f, 7, 9);
            cv::cvtColor(out, out, cv::COLOR_BGR2RGB);
            return out;
        });
        EXPECT_EQ(ff::test::max_sample_diff(out8, expected8), 0.0) << channels;
        EXPECT_GT(ff::test::max_sample_diff(out8, clean), 2.0) << channels; // it changed something

        const cv::Mat deep = ff::test::picture_at(16, 12, channels, CV_16U, 2);
        const cv::Mat out16 = ff::test::run_at_depth("Denoise", deep, [](FakeRun& run) { run.param("search_size", 9); });
        const cv::Mat expected16 = on_colour(deep, [](const cv::Mat& colour) {
            cv::Mat out;
            cv::fastNlMeansDenoising(colour, out, std::vector<float>{10.0f * 257.0f}, 7, 9, cv::NORM_L1);
            return out;
        });
        EXPECT_EQ(ff::test::max_sample_diff(out16, expected16), 0.0) << channels;

        FakeRun floats(ff::test::core_plugin().op("Denoise"));
        floats.input("image", ff::test::image_of(ff::test::picture_at(16, 12, channels, CV_32F)));
        EXPECT_EQ(floats.execute(), FF_ERROR);
        EXPECT_NE(floats.error().find("needs an 8- or 16-bit image"), std::string::npos) << floats.error();
        EXPECT_NE(floats.error().find("this image is float"), std::string::npos) << floats.error();
    }
    FakeRun even(ff::test::core_plugin().op("Denoise"));
    even.param("template_size", 6);
    expect_param_error(even, "template_size", "must be odd");
    FakeRun small(ff::test::core_plugin().op("Denoise"));
    small.param("template_size", 9).param("search_size", 7);
    expect_param_error(small, "search_size", "must not be smaller than template_size");
}

TEST(Morphology, EveryOperationMatchesMorphologyExExactly) {
    const std::pair<const char*, int> operations[] = {
        {"erode", cv::MORPH_ERODE}, {"dilate", cv::MORPH_DILATE}, {"open", cv::MORPH_OPEN}, {"close", cv::MORPH_CLOSE},
        {"gradient", cv::MORPH_GRADIENT}, {"tophat", cv::MORPH_TOPHAT}, {"blackhat", cv::MORPH_BLACKHAT}};
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4})
            for (const auto& [name, code] : operations) {
                const cv::Mat in = ff::test::picture_at(14, 10, channels, d.depth, 3);
                const cv::Mat element = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5));
                cv::Mat expected;
                cv::morphologyEx(in, expected, code, element, cv::Point(-1, -1), 2);
                const cv::Mat out = ff::test::run_at_depth("Morphology", in, [&](FakeRun& run) {
                    run.param("operation", name).param("shape", "ellipse").param("size", 5).param("iterations", 2);
                });
                EXPECT_LE(ff::test::max_sample_diff(out, expected), d.depth == CV_32F ? 1e-6 : 0.0)
                    << ff::test::case_name(d, channels) << " " << name;
            }
}

TEST(Canny, MatchesCvCannyOn8BitSamples) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(24, 16, channels, d.depth, 4);
            cv::Mat rgb = in;
            if (channels == 4) cv::cvtColor(in, rgb, cv::COLOR_RGBA2RGB);
            cv::Mat expected;
            cv::Canny(d.depth == CV_8U ? rgb : eight_bit(rgb), expected, 40.0, 120.0, 3, true);
            const cv::Mat out = ff::test::run_op("Canny", in, [](FakeRun& run) {
                run.param("low", 40.0).param("high", 120.0).param("l2_gradient", true);
            });
            ASSERT_EQ(out.channels(), 1) << ff::test::case_name(d, channels);
            EXPECT_EQ(ff::test::max_sample_diff(ff::test::samples_at(out, CV_8U), expected), 0.0) << ff::test::case_name(d, channels);
            EXPECT_GT(cv::countNonZero(expected), 10) << "the picture has edges";
        }
    FakeRun reversed(ff::test::core_plugin().op("Canny"));
    reversed.param("low", 100.0).param("high", 50.0);
    expect_param_error(reversed, "high", "must not be below low");
    FakeRun aperture(ff::test::core_plugin().op("Canny"));
    aperture.param("aperture", 4);
    expect_param_error(aperture, "aperture", "must be 3, 5 or 7");
}

TEST(Sobel, MatchesCvSobelAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4})
            for (const char* direction : {"x", "y", "magnitude"}) {
                const cv::Mat in = ff::test::picture_at(14, 10, channels, d.depth, 5);
                cv::Mat colour = in;
                if (channels == 4) cv::cvtColor(in, colour, cv::COLOR_RGBA2RGB);
                // OpenCV on the samples, with a float result, brought to the [0, 1] scale.
                cv::Mat dx, dy, expected;
                cv::Sobel(colour, dx, CV_32F, 1, 0, 5, 2.0 / full_scale(d.depth));
                cv::Sobel(colour, dy, CV_32F, 0, 1, 5, 2.0 / full_scale(d.depth));
                if (direction[0] == 'x') expected = dx;
                else if (direction[0] == 'y') expected = dy;
                else cv::magnitude(dx.reshape(1), dy.reshape(1), expected), expected = expected.reshape(colour.channels());
                const cv::Mat out = ff::test::run_op("Sobel", in, [&](FakeRun& run) {
                    run.param("direction", direction).param("size", 5).param("scale", 2.0);
                });
                EXPECT_LE(ff::test::max_sample_diff(out, expected), 1e-4) << ff::test::case_name(d, channels) << " " << direction;
            }
    FakeRun size(ff::test::core_plugin().op("Sobel"));
    size.param("size", 2);
    expect_param_error(size, "size", "must be 1, 3, 5 or 7");
}

TEST(Equalize, GlobalMatchesEqualizeHistOn8BitSamples) {
    for (const auto& d : kDepths) {
        // Gray, and each channel of RGB: equalizeHist on the (8-bit) samples.
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(20, 14, channels, d.depth, 6);
            const cv::Mat expected = on_colour(d.depth == CV_8U ? in : eight_bit(in), [&](const cv::Mat& colour) {
                std::vector<cv::Mat> planes;
                cv::split(colour, planes);
                for (cv::Mat& plane : planes) cv::equalizeHist(plane, plane);
                cv::Mat out;
                cv::merge(planes, out);
                return out;
            });
            const cv::Mat out = ff::test::run_op("Equalize", in, [](FakeRun& run) { run.param("channels", "each"); });
            EXPECT_EQ(ff::test::max_sample_diff(ff::test::samples_at(out, CV_8U), expected), 0.0)
                << ff::test::case_name(d, channels);
        }
        // RGB by its luma: Y of YCrCb equalized on 8 bits, the colour kept.
        const cv::Mat in = ff::test::picture_at(20, 14, 3, d.depth, 6);
        cv::Mat floats, ycrcb, expected;
        in.convertTo(floats, CV_32F, 1.0 / full_scale(d.depth));
        cv::cvtColor(floats, ycrcb, cv::COLOR_RGB2YCrCb);
        std::vector<cv::Mat> planes;
        cv::split(ycrcb, planes);
        cv::Mat y8;
        planes[0].convertTo(y8, CV_8U, 255.0);
        cv::equalizeHist(y8, y8);
        y8.convertTo(planes[0], CV_32F, 1.0 / 255.0);
        cv::merge(planes, ycrcb);
        cv::cvtColor(ycrcb, expected, cv::COLOR_YCrCb2RGB);
        EXPECT_LE(ff::test::max_sample_diff(ff::test::run_op("Equalize", in), expected), 1e-5) << d.name;
    }
}

TEST(Equalize, ClaheMatchesOpenCvAt8And16Bits) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(32, 24, channels, d.depth, 7);
            // 8-bit images at 8 bits; 16-bit ones at 16; floats rounded to 16.
            const int depth = d.depth == CV_8U ? CV_8U : CV_16U;
            cv::Mat samples;
            in.convertTo(samples, depth, full_scale(depth) / full_scale(d.depth));
            const cv::Mat expected = on_colour(samples, [&](const cv::Mat& colour) {
                std::vector<cv::Mat> planes;
                cv::split(colour, planes);
                for (cv::Mat& plane : planes) cv::createCLAHE(3.0, cv::Size(4, 4))->apply(plane, plane);
                cv::Mat out;
                cv::merge(planes, out);
                return out;
            });
            const cv::Mat out = ff::test::run_op("Equalize", in, [](FakeRun& run) {
                run.param("method", "clahe").param("channels", "each").param("clip_limit", 3.0).param("tiles", 4);
            });
            EXPECT_EQ(ff::test::max_sample_diff(ff::test::samples_at(out, depth), expected), 0.0) << ff::test::case_name(d, channels);
        }
}

// The filters that may run long on a large image run on a thread of their own: a cancel is
// answered at once (here: raised before the call starts, so it never does).
TEST(SlowFilters, AnswerACancel) {
    for (const char* op : {"MedianBlur", "BilateralFilter", "Denoise", "Morphology"}) {
        FakeRun run(ff::test::core_plugin().op(op));
        run.input("image", ff::test::image_of(ff::test::picture_at(12, 8, 3, CV_8U))).cancel();
        EXPECT_EQ(run.execute(), FF_CANCELLED) << op;
    }
}
