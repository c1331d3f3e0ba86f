// graphs/baseline.yaml run by the real `fieldflow` host and the built core plugin; every number
// in metrics.json is checked against OpenCV computations on the PNG files it wrote.
#include "run_command.hpp"
#include "test_support.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;
using ff::test::ScratchDir;

namespace {

constexpr const char* kInput = "/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg";

using Result = ff::test::CommandResult;

Result run_fieldflow(const std::string& arguments) {
    return ff::test::run_command(std::string(FF_FIELDFLOW_EXE) + " " + arguments);
}

std::string baseline_graph() { return std::string(FF_GRAPHS_DIR) + "/baseline.yaml"; }

} // namespace

TEST(BaselineGraph, MetricsMatchOpenCvOnTheWrittenFiles) {
    ScratchDir dir;
    const fs::path out = dir.path() / "baseline";
    const Result run = run_fieldflow("run " + baseline_graph() + " --no-cache --set output=" + out.string());
    ASSERT_EQ(run.exit_code, 0) << run.output;

    for (const char* name : {"ground_truth.png", "bilinear.png", "compare.png", "metrics.json", "error_map.png"})
        EXPECT_TRUE(fs::is_regular_file(out / name)) << name;
    const cv::Mat truth = cv::imread((out / "ground_truth.png").string(), cv::IMREAD_UNCHANGED);
    const cv::Mat bilinear = cv::imread((out / "bilinear.png").string(), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(truth.type(), CV_8UC3);
    ASSERT_EQ(bilinear.type(), CV_8UC3);
    ASSERT_EQ(truth.size(), cv::Size(751, 563));
    ASSERT_EQ(bilinear.size(), truth.size());

    // The saved ground truth is the JPEG's pixels, unchanged.
    const cv::Mat jpeg = cv::imread(kInput, cv::IMREAD_COLOR);
    EXPECT_EQ(cv::norm(truth, jpeg, cv::NORM_INF), 0.0);

    // The baseline, recomputed here: area down to 187x140 (751/4 x 563/4), bilinear back up.
    cv::Mat unit, small, up, expected;
    jpeg.convertTo(unit, CV_32F, 1.0 / 255.0);
    cv::resize(unit, small, cv::Size(187, 140), 0, 0, cv::INTER_AREA);
    cv::resize(small, up, unit.size(), 0, 0, cv::INTER_LINEAR);
    up.convertTo(expected, CV_8U, 255.0);
    EXPECT_EQ(cv::norm(bilinear, expected, cv::NORM_INF), 0.0);

    const auto metrics = nlohmann::json::parse(ff::test::read_bytes((out / "metrics.json").string()));
    const double psnr = cv::PSNR(truth, bilinear);
    EXPECT_NEAR(metrics.at("psnr").get<double>(), psnr, 1e-9);
    EXPECT_NEAR(metrics.at("mse").get<double>(),
                cv::norm(truth, bilinear, cv::NORM_L2SQR) / (truth.total() * 3.0) / (255.0 * 255.0), 1e-12);
    EXPECT_GT(metrics.at("ssim").get<double>(), 0.0);
    EXPECT_LT(metrics.at("ssim").get<double>(), 1.0);
    // The seed's bilinear baseline on this photo scores 26.0 dB.
    EXPECT_NEAR(psnr, 26.0, 0.1);

    // The strip holds both pictures side by side under a label band.
    const cv::Mat strip = cv::imread((out / "compare.png").string(), cv::IMREAD_UNCHANGED);
    EXPECT_GT(strip.cols, 2 * 751);
    EXPECT_GT(strip.rows, 563);

    // The error map: the image's size; black (inferno's first colour) where the baseline is exact.
    const cv::Mat map = cv::imread((out / "error_map.png").string(), cv::IMREAD_COLOR);
    ASSERT_EQ(map.size(), truth.size());
    cv::Mat exact;
    cv::compare(cv::Mat(truth.reshape(1) == bilinear.reshape(1)).reshape(3), cv::Scalar::all(255), exact, cv::CMP_EQ);
    std::vector<cv::Mat> planes;
    cv::split(exact, planes);
    cv::Mat all = planes[0] & planes[1] & planes[2];
    cv::Point where;
    ASSERT_GT(cv::countNonZero(all), 0);
    cv::minMaxLoc(all, nullptr, nullptr, nullptr, &where);
    EXPECT_LE(cv::norm(map.at<cv::Vec3b>(where), cv::NORM_INF), 5.0) << where;
}

// Validation looks for the file (what `fieldflow check` catches), so nothing runs.
TEST(BaselineGraph, MissingInputIsRejectedBeforeAnythingRunsWithTheFileName) {
    ScratchDir dir;
    const Result run = run_fieldflow("run " + baseline_graph() + " --no-cache --set output=" +
                                     dir.file("out") + " --set input=" + dir.file("nothing.png"));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("param 'path': file not found: '" + dir.file("nothing.png") + "'"), std::string::npos)
        << run.output;
    EXPECT_FALSE(fs::exists(dir.path() / "out" / "metrics.json"));
}

TEST(BaselineGraph, BadGridIsRejectedBeforeAnythingRuns) {
    ScratchDir dir;
    const Result run = run_fieldflow("run " + baseline_graph() + " --no-cache --set output=" +
                                     dir.file("out") + " --set grid=big");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("baseline.yaml:"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("grid 'big'"), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(dir.path() / "out"));
}
