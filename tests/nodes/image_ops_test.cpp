// Resize, BilinearBaseline, Grayscale, Downsample, Compare, Crop, GaussianBlur, UnsharpMask,
// Rotate, Flip, ColorConvert and Concat against OpenCV computations.
#include "fake_host.hpp"
#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

using ff::test::FakeRun;

namespace {

FakeRun op_run(const char* op, const cv::Mat& rgb) {
    FakeRun run(ff::test::core_plugin().op(op));
    run.input("image", rgb);
    return run;
}

cv::Mat run_ok(FakeRun& run) {
    EXPECT_EQ(run.execute(), FF_OK) << run.error();
    return run.has_output("image") ? run.output_mat("image") : cv::Mat();
}

} // namespace

TEST(Resize, EveryInterpolationMatchesOpenCv) {
    const cv::Mat rgb = ff::test::test_picture(37, 23);
    const std::vector<std::pair<std::string, int>> modes = {
        {"nearest", cv::INTER_NEAREST}, {"linear", cv::INTER_LINEAR}, {"cubic", cv::INTER_CUBIC},
        {"area", cv::INTER_AREA},       {"lanczos", cv::INTER_LANCZOS4}};
    for (const auto& [name, flag] : modes)
        for (cv::Size size : {cv::Size(80, 50), cv::Size(12, 9)}) {
            FakeRun run = op_run("Resize", rgb);
            run.param("width", size.width).param("height", size.height).param("interpolation", name.c_str());
            cv::Mat expected;
            cv::resize(rgb, expected, size, 0, 0, flag);
            const cv::Mat out = run_ok(run);
            ASSERT_EQ(out.size(), size) << name;
            EXPECT_EQ(ff::test::max_abs_diff(out, expected), 0.0) << name;
        }
}

TEST(Resize, OneSideKeepsAspectRatioAndScaleScalesBoth) {
    const cv::Mat rgb = ff::test::test_picture(40, 30);
    FakeRun width_only = op_run("Resize", rgb);
    width_only.param("width", 20);
    EXPECT_EQ(run_ok(width_only).size(), cv::Size(20, 15));
    FakeRun height_only = op_run("Resize", rgb);
    height_only.param("height", 45);
    EXPECT_EQ(run_ok(height_only).size(), cv::Size(60, 45));
    FakeRun scaled = op_run("Resize", rgb);
    scaled.param("scale", 0.25);
    cv::Mat expected;
    cv::resize(rgb, expected, cv::Size(10, 8), 0, 0, cv::INTER_LINEAR); // 7.5 rounds to 8
    const cv::Mat out = run_ok(scaled);
    ASSERT_EQ(out.size(), cv::Size(10, 8));
    EXPECT_EQ(ff::test::max_abs_diff(out, expected), 0.0);
}

TEST(Resize, ConflictingOrMissingSizeIsAParamError) {
    const cv::Mat rgb = ff::test::test_picture(8, 8);
    FakeRun both = op_run("Resize", rgb);
    both.param("width", 4).param("scale", 2.0);
    EXPECT_EQ(both.validate(), FF_ERROR);
    EXPECT_EQ(both.error_param(), "scale");
    FakeRun none = op_run("Resize", rgb);
    EXPECT_EQ(none.validate(), FF_OK); // a 'reference' input could still supply the size
    EXPECT_EQ(none.execute(), FF_ERROR);
    EXPECT_EQ(none.error_param(), "width");
    FakeRun reference_and_width = op_run("Resize", rgb);
    reference_and_width.input("reference", ff::test::test_picture(4, 4)).param("width", 3);
    EXPECT_EQ(reference_and_width.execute(), FF_ERROR);
    EXPECT_EQ(reference_and_width.error_param(), "width");
}

TEST(Resize, ToTheReferenceImageSize) {
    const cv::Mat rgb = ff::test::test_picture(21, 13);
    FakeRun run = op_run("Resize", rgb);
    run.input("reference", ff::test::test_picture(50, 7)).param("interpolation", "cubic");
    cv::Mat expected;
    cv::resize(rgb, expected, cv::Size(50, 7), 0, 0, cv::INTER_CUBIC);
    const cv::Mat out = run_ok(run);
    ASSERT_EQ(out.size(), cv::Size(50, 7));
    EXPECT_EQ(ff::test::max_abs_diff(out, expected), 0.0);
}

TEST(BilinearBaseline, AreaDownToTheGridThenBilinearUp) {
    const cv::Mat rgb = ff::test::test_picture(75, 53, 4);
    for (const char* grid : {"auto", "30x20", "7,5"}) {
        FakeRun run = op_run("BilinearBaseline", rgb);
        run.param("grid", grid);
        const cv::Size grid_size = std::string(grid) == "auto" ? cv::Size(18, 13) // 75/4, 53/4
                                   : std::string(grid) == "30x20" ? cv::Size(30, 20)
                                                                  : cv::Size(7, 5);
        cv::Mat small, expected;
        cv::resize(rgb, small, grid_size, 0, 0, cv::INTER_AREA);
        cv::resize(small, expected, rgb.size(), 0, 0, cv::INTER_LINEAR);
        const cv::Mat out = run_ok(run);
        ASSERT_EQ(out.size(), rgb.size()) << grid;
        EXPECT_EQ(ff::test::max_abs_diff(out, expected), 0.0) << grid;
        EXPECT_GT(ff::test::max_abs_diff(out, rgb), 0.05) << grid; // it really lost detail
    }
}

// Large images are shrunk and enlarged in bands of rows (a cancel check between them): the result
// is exactly one cv::resize call's, for whole factors (banded), a non-power-of-two factor (the
// enlargement in one call on a thread of its own) and fractional ones (one call each), for gray,
// RGB and RGBA, and a cancel between bands stops the node.
TEST(BilinearBaseline, BandsGiveExactlyWhatOneResizeGives) {
    struct Case {
        int width, height, channels;
        const char* grid;
        cv::Size grid_size;
    };
    const Case cases[] = {
        {2048, 1600, 3, "auto", {512, 400}},    // factor 4: both in bands
        {1600, 1024, 1, "200x128", {200, 128}}, // factor 8, gray
        {1000, 1500, 4, "200x300", {200, 300}}, // factor 5: shrink in bands, enlarge in one call
        {1203, 1601, 3, "auto", {300, 400}},    // fractional: one call each
    };
    for (const Case& c : cases) {
        cv::Mat image(c.height, c.width, CV_32FC(c.channels));
        cv::randu(image, 0.0, 1.0);
        FakeRun run(ff::test::core_plugin().op("BilinearBaseline"));
        ff::test::Image input;
        input.width = uint32_t(c.width);
        input.height = uint32_t(c.height);
        input.channels = uint32_t(c.channels);
        input.pixels.assign(image.ptr<float>(), image.ptr<float>() + image.total() * size_t(c.channels));
        run.input("image", std::move(input)).param("grid", c.grid);
        ASSERT_EQ(run.execute(), FF_OK) << run.error();
        cv::Mat small, expected;
        cv::resize(image, small, c.grid_size, 0, 0, cv::INTER_AREA);
        cv::resize(small, expected, image.size(), 0, 0, cv::INTER_LINEAR);
        const ff::test::Image& out = run.output_image("image");
        const cv::Mat got(int(out.height), int(out.width), CV_32FC(int(out.channels)),
                          const_cast<float*>(out.pixels.data()));
        ASSERT_EQ(got.size(), expected.size()) << c.width << "x" << c.height;
        EXPECT_EQ(cv::norm(got, expected, cv::NORM_INF), 0.0) << c.width << "x" << c.height;
    }

    FakeRun cancelled = op_run("BilinearBaseline", ff::test::test_picture(2048, 1600));
    int bands = 0;
    cancelled.on_progress([&](uint64_t, uint64_t, const std::string& detail) {
        return detail == "scaling back up" && ++bands == 1;
    });
    EXPECT_EQ(cancelled.execute(), FF_CANCELLED);
    EXPECT_EQ(bands, 1);
}

// Grid 'model': a dense model's own grid, else as many values as the model has parameters (a hash
// grid's tables are no grid); 'params' always the latter; either without stats is a param error.
TEST(BilinearBaseline, GridOfTheModelFromItsStats) {
    const cv::Mat rgb = ff::test::test_picture(75, 53);
    auto baseline = [&](const char* grid, const std::string& stats) {
        FakeRun run = op_run("BilinearBaseline", rgb);
        run.param("grid", grid).input_blob("stats", stats);
        return run_ok(run);
    };
    auto expected = [&](cv::Size grid) {
        cv::Mat small, out;
        cv::resize(rgb, small, grid, 0, 0, cv::INTER_AREA);
        cv::resize(small, out, rgb.size(), 0, 0, cv::INTER_LINEAR);
        return out;
    };
    const std::string dense = R"({"parameter_count": 2000, "grid_width": 20, "grid_height": 9})";
    const std::string hash = R"({"parameter_count": 1200, "grid_width": 0, "grid_height": 0})";
    EXPECT_EQ(ff::test::max_abs_diff(baseline("model", dense), expected({20, 9})), 0.0);
    // 1200 values at 3 a cell, 75:53: 23x17 (391 cells, 1,173 values).
    EXPECT_EQ(ff::test::max_abs_diff(baseline("model", hash), expected({23, 17})), 0.0);
    EXPECT_EQ(ff::test::max_abs_diff(baseline("params", dense), expected({30, 22})), 0.0); // 1,980 values
    FakeRun missing = op_run("BilinearBaseline", rgb);
    missing.param("grid", "model");
    EXPECT_EQ(missing.execute(), FF_ERROR);
    EXPECT_EQ(missing.error_param(), "grid");
}

TEST(BilinearBaseline, BadGridIsAParamError) {
    FakeRun run = op_run("BilinearBaseline", ff::test::test_picture(8, 8));
    run.param("grid", "big");
    EXPECT_EQ(run.validate(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "grid");
    EXPECT_NE(run.error().find("'big'"), std::string::npos) << run.error();
}

TEST(Grayscale, MatchesOpenCvLuma) {
    const cv::Mat rgb = ff::test::test_picture(33, 21, 2);
    cv::Mat gray, expected;
    cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY); // 0.299 R + 0.587 G + 0.114 B
    cv::cvtColor(gray, expected, cv::COLOR_GRAY2RGB);
    FakeRun run = op_run("Grayscale", rgb);
    EXPECT_LE(ff::test::max_abs_diff(run_ok(run), expected), 1e-6);
}

TEST(Downsample, BlockMeansMatchOpenCvArea) {
    const cv::Mat rgb = ff::test::test_picture(50, 37, 6);
    for (int factor : {1, 2, 3, 4, 7}) {
        FakeRun run = op_run("Downsample", rgb);
        run.param("factor", factor);
        // Remainder rows and columns are dropped: area-resize the full blocks only.
        const cv::Rect blocks(0, 0, rgb.cols / factor * factor, rgb.rows / factor * factor);
        cv::Mat expected;
        cv::resize(rgb(blocks), expected, cv::Size(rgb.cols / factor, rgb.rows / factor), 0, 0,
                   cv::INTER_AREA);
        const cv::Mat out = run_ok(run);
        ASSERT_EQ(out.size(), expected.size()) << factor;
        EXPECT_LE(ff::test::max_abs_diff(out, expected), 1e-6) << factor;
    }
}

TEST(Downsample, FactorLargerThanTheImageIsAParamError) {
    FakeRun run = op_run("Downsample", ff::test::test_picture(10, 6));
    run.param("factor", 7);
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "factor");
}

TEST(Compare, TilesScaledToACommonHeight) {
    const cv::Mat a = ff::test::test_picture(40, 30, 1), b = ff::test::test_picture(20, 60, 2);
    FakeRun run(ff::test::core_plugin().op("Compare"));
    run.input("image1", a).input("image3", b).param("gap", 5); // image2 left unconnected
    const cv::Mat out = run_ok(run);
    ASSERT_EQ(out.size(), cv::Size(40 + 5 + 10, 30));
    cv::Mat b_scaled;
    cv::resize(b, b_scaled, cv::Size(10, 30), 0, 0, cv::INTER_AREA);
    EXPECT_EQ(ff::test::max_abs_diff(out(cv::Rect(0, 0, 40, 30)), a), 0.0);
    EXPECT_EQ(ff::test::max_abs_diff(out(cv::Rect(45, 0, 10, 30)), b_scaled), 0.0);
    EXPECT_EQ(cv::norm(out(cv::Rect(40, 0, 5, 30)), cv::NORM_INF), 0.0); // the gap
}

TEST(Compare, LabelsDrawABandAboveEachTile) {
    const cv::Mat a = ff::test::test_picture(120, 90, 1), b = ff::test::test_picture(120, 90, 2);
    FakeRun run(ff::test::core_plugin().op("Compare"));
    run.input("image1", a).input("image2", b).param("labels", std::vector<std::string>{"truth", "guess"});
    const cv::Mat out = run_ok(run);
    const int band = out.rows - 90;
    ASSERT_GE(band, 20);
    EXPECT_EQ(ff::test::max_abs_diff(out(cv::Rect(0, band, 120, 90)), a), 0.0);
    double lo = 0, hi = 0;
    cv::minMaxLoc(out(cv::Rect(0, 0, 120, band)).reshape(1), &lo, &hi);
    EXPECT_GT(hi - lo, 0.5) << "the label band should hold bright text on a dark ground";
}

TEST(Compare, NeedsTwoImagesAndMatchingLabels) {
    const cv::Mat a = ff::test::test_picture(10, 10);
    FakeRun one(ff::test::core_plugin().op("Compare"));
    one.input("image1", a);
    EXPECT_EQ(one.execute(), FF_ERROR);
    EXPECT_NE(one.error().find("at least 2"), std::string::npos) << one.error();
    FakeRun mismatch(ff::test::core_plugin().op("Compare"));
    mismatch.input("image1", a).input("image2", a).param("labels", std::vector<std::string>{"x"});
    EXPECT_EQ(mismatch.execute(), FF_ERROR);
    EXPECT_EQ(mismatch.error_param(), "labels");
}

TEST(Crop, MatchesTheOpenCvRoiAndChecksTheBounds) {
    const cv::Mat rgb = ff::test::test_picture(40, 30, 3);
    FakeRun run = op_run("Crop", rgb);
    run.param("x", 5).param("y", 7).param("width", 20).param("height", 10);
    EXPECT_EQ(ff::test::max_abs_diff(run_ok(run), rgb(cv::Rect(5, 7, 20, 10))), 0.0);
    FakeRun rest = op_run("Crop", rgb);
    rest.param("x", 30);
    EXPECT_EQ(ff::test::max_abs_diff(run_ok(rest), rgb(cv::Rect(30, 0, 10, 30))), 0.0);
    FakeRun past = op_run("Crop", rgb);
    past.param("x", 30).param("width", 11);
    EXPECT_EQ(past.execute(), FF_ERROR);
    EXPECT_EQ(past.error_param(), "width");
}

TEST(GaussianBlur, MatchesOpenCv) {
    const cv::Mat rgb = ff::test::test_picture(33, 21, 5);
    for (double sigma : {0.5, 2.0}) {
        FakeRun run = op_run("GaussianBlur", rgb);
        run.param("sigma", sigma);
        cv::Mat expected;
        cv::GaussianBlur(rgb, expected, cv::Size(0, 0), sigma, sigma, cv::BORDER_REFLECT_101);
        const cv::Mat out = run_ok(run);
        EXPECT_LE(ff::test::max_abs_diff(out, expected), 1e-6) << sigma;
        EXPECT_GT(ff::test::max_abs_diff(out, rgb), 0.01) << sigma; // it really blurred
    }
}

TEST(UnsharpMask, AddsBackTheDetailTheBlurRemoves) {
    const cv::Mat rgb = ff::test::test_picture(33, 21, 6);
    FakeRun run = op_run("UnsharpMask", rgb);
    run.param("sigma", 1.5).param("amount", 0.7);
    cv::Mat blurred;
    cv::GaussianBlur(rgb, blurred, cv::Size(0, 0), 1.5, 1.5, cv::BORDER_REFLECT_101);
    const cv::Mat expected = rgb + 0.7 * (rgb - blurred);
    EXPECT_LE(ff::test::max_abs_diff(run_ok(run), expected), 1e-5);
}

TEST(RotateAndFlip, MatchOpenCv) {
    const cv::Mat rgb = ff::test::test_picture(17, 11, 7);
    const std::vector<std::pair<double, int>> angles = {
        {90.0, cv::ROTATE_90_CLOCKWISE}, {180.0, cv::ROTATE_180}, {270.0, cv::ROTATE_90_COUNTERCLOCKWISE}};
    for (const auto& [angle, code] : angles) {
        FakeRun run = op_run("Rotate", rgb);
        run.param("angle", angle);
        cv::Mat expected;
        cv::rotate(rgb, expected, code);
        const cv::Mat out = run_ok(run);
        ASSERT_EQ(out.size(), expected.size()) << angle;
        EXPECT_EQ(ff::test::max_abs_diff(out, expected), 0.0) << angle;
    }
    const std::vector<std::pair<std::string, int>> directions = {{"horizontal", 1}, {"vertical", 0}, {"both", -1}};
    for (const auto& [direction, code] : directions) {
        FakeRun run = op_run("Flip", rgb);
        run.param("direction", direction.c_str());
        cv::Mat expected;
        cv::flip(rgb, expected, code);
        EXPECT_EQ(ff::test::max_abs_diff(run_ok(run), expected), 0.0) << direction;
    }
}

TEST(ColorConvert, MatchesOpenCvAndRoundTrips) {
    const cv::Mat rgb = ff::test::test_picture(19, 13, 8);
    for (const auto& [to, code] : std::vector<std::pair<std::string, int>>{{"hsv", cv::COLOR_RGB2HSV},
                                                                           {"lab", cv::COLOR_RGB2Lab}}) {
        FakeRun run = op_run("ColorConvert", rgb);
        run.param("to", to.c_str());
        cv::Mat expected;
        cv::cvtColor(rgb, expected, code);
        const cv::Mat converted = run_ok(run);
        EXPECT_LE(ff::test::max_abs_diff(converted, expected), 1e-4) << to;
        FakeRun back = op_run("ColorConvert", converted);
        back.param("to", (to + "_to_rgb").c_str());
        EXPECT_LE(ff::test::max_abs_diff(run_ok(back), rgb), 5e-3) << to; // OpenCV's float Lab is approximate
    }
    cv::Mat gray, expected;
    cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY);
    cv::cvtColor(gray, expected, cv::COLOR_GRAY2RGB);
    FakeRun run = op_run("ColorConvert", rgb);
    EXPECT_LE(ff::test::max_abs_diff(run_ok(run), expected), 1e-6);
}

TEST(Concat, RowsColumnsAndGridsAtTheImagesOwnSize) {
    const cv::Mat a = ff::test::test_picture(10, 8, 1), b = ff::test::test_picture(6, 12, 2),
                  c = ff::test::test_picture(10, 12, 3);
    FakeRun row(ff::test::core_plugin().op("Concat"));
    row.input("image1", a).input("image2", b);
    const cv::Mat out = run_ok(row);
    ASSERT_EQ(out.size(), cv::Size(20, 12));
    EXPECT_EQ(ff::test::max_abs_diff(out(cv::Rect(0, 0, 10, 8)), a), 0.0);
    EXPECT_EQ(ff::test::max_abs_diff(out(cv::Rect(10, 0, 6, 12)), b), 0.0);
    EXPECT_EQ(cv::norm(out(cv::Rect(0, 8, 10, 4)), cv::NORM_INF), 0.0); // background below a
    FakeRun grid(ff::test::core_plugin().op("Concat"));
    grid.input("image1", c).input("image2", c).input("image3", c).param("columns", 2);
    cv::Mat top, bottom, expected;
    cv::hconcat(c, c, top);
    cv::hconcat(c, cv::Mat(c.size(), CV_32FC3, cv::Scalar::all(0)), bottom);
    cv::vconcat(top, bottom, expected);
    EXPECT_EQ(ff::test::max_abs_diff(run_ok(grid), expected), 0.0);
}
