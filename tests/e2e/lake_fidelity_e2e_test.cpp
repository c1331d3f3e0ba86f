// graphs/lake.yaml end to end on lavapipe, for what a run must not lose or leave stale:
//  - a run that takes Train from the disk cache writes exactly the files (names and bytes) of the
//    run that computed it, snapshots and training log included, and changing only the output
//    folder reuses the cached model;
//  - a 16-bit PNG gives 16-bit PNGs and metrics on 16-bit values; an EXR gives float EXRs (with
//    `format=exr`) and metrics on the float values; gray stays one channel; RGBA keeps its alpha
//    in every image written.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every file under `folder`: relative path -> bytes.
std::map<std::string, std::string> tree(const fs::path& folder) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(folder))
        if (e.is_regular_file()) files[fs::relative(e.path(), folder).generic_string()] = read_bytes(e.path());
    return files;
}

std::vector<std::string> names(const std::map<std::string, std::string>& files) {
    std::vector<std::string> out;
    for (const auto& [name, bytes] : files) out.push_back(name);
    return out;
}

class LakeFidelity : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = fs::temp_directory_path() / ("ff_e2e_fidelity_" + std::to_string(::getpid()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
        cv::Mat photo = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR);
        ASSERT_FALSE(photo.empty());
        cv::resize(photo, small_, cv::Size(64, 48), 0, 0, cv::INTER_AREA);
    }
    void TearDown() override { fs::remove_all(folder_); }

    // Runs the lake graph on `input` into `output`; "" for cache means --no-cache.
    ff::test::CommandResult lake(const fs::path& input, const fs::path& output, const fs::path& cache,
                                 const std::string& more = "") {
        const std::string command = std::string(FF_FIELDFLOW_EXE) + " run " + FF_LAKE_GRAPH +
                                    " --set input=" + input.string() + " --set output=" +
                                    output.string() + " --set steps=60 --set batch=512 --device cpu " +
                                    (cache.empty() ? std::string("--no-cache") : "--cache " + cache.string()) +
                                    more;
        return ff::test::run_command(command);
    }

    fs::path folder_;
    cv::Mat small_; // 8-bit BGR
};

bool train_was_cached(const std::string& log) {
    return log.find("cached    train") != std::string::npos;
}

TEST_F(LakeFidelity, CachedRunWritesTheSameFilesAndTheOutputFolderIsNotInTheKey) {
    const fs::path input = folder_ / "photo.png", cache = folder_ / "cache";
    ASSERT_TRUE(cv::imwrite(input.string(), small_));
    const fs::path a = folder_ / "a", b = folder_ / "b";

    const auto first = lake(input, a, cache);
    ASSERT_EQ(first.exit_code, 0) << first.output;
    EXPECT_FALSE(train_was_cached(first.output)) << first.output;
    const auto computed = tree(a);
    EXPECT_TRUE(computed.count("snapshots/training_log.csv")) << ::testing::PrintToString(names(computed));
    EXPECT_TRUE(computed.count("snapshots/training_log.png"));
    EXPECT_TRUE(computed.count("snapshots/prediction_at_60.png"));

    // The output folder deleted: Train comes from the cache and every file comes back, byte for byte.
    fs::remove_all(a);
    const auto again = lake(input, a, cache);
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_TRUE(train_was_cached(again.output)) << again.output;
    const auto cached = tree(a);
    EXPECT_EQ(names(cached), names(computed));
    for (const auto& [name, bytes] : computed) EXPECT_TRUE(cached.at(name) == bytes) << name << " differs";

    // Only the output folder changed: the model is reused, and the same files appear there.
    const auto elsewhere = lake(input, b, cache);
    ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.output;
    EXPECT_TRUE(train_was_cached(elsewhere.output)) << elsewhere.output;
    const auto moved = tree(b);
    EXPECT_EQ(names(moved), names(computed));
    for (const char* name : {"model.ffm", "prediction.png", "metrics.json", "snapshots/training_log.csv",
                             "snapshots/prediction_at_60.png"})
        EXPECT_TRUE(moved.at(name) == computed.at(name)) << name << " differs";
}

TEST_F(LakeFidelity, SixteenBitGrayAndAlphaAreKept) {
    // 16-bit RGB: every image written is 16-bit, and the metrics say so.
    cv::Mat deep;
    small_.convertTo(deep, CV_16U, 257.0);
    deep.at<cv::Vec3w>(0, 0) = cv::Vec3w(1, 2, 3); // values an 8-bit copy cannot hold
    const fs::path deep_png = folder_ / "deep.png", deep_out = folder_ / "deep";
    ASSERT_TRUE(cv::imwrite(deep_png.string(), deep));
    const auto deep_run = lake(deep_png, deep_out, "");
    ASSERT_EQ(deep_run.exit_code, 0) << deep_run.output;
    for (const char* name : {"ground_truth.png", "prediction.png", "bilinear.png"})
        EXPECT_EQ(cv::imread((deep_out / name).string(), cv::IMREAD_UNCHANGED).type(), CV_16UC3) << name;
    EXPECT_EQ(cv::imread((deep_out / "ground_truth.png").string(), cv::IMREAD_UNCHANGED).at<cv::Vec3w>(0, 0),
              cv::Vec3w(1, 2, 3));
    const json metrics = json::parse(read_bytes(deep_out / "metrics.json"));
    EXPECT_EQ(metrics["metrics_on"], "16-bit values, as saved");
    // The PSNR is that of the saved 16-bit files.
    const cv::Mat truth = cv::imread((deep_out / "ground_truth.png").string(), cv::IMREAD_UNCHANGED);
    const cv::Mat learned = cv::imread((deep_out / "prediction.png").string(), cv::IMREAD_UNCHANGED);
    EXPECT_NEAR(metrics["psnr_learned"].get<double>(), cv::PSNR(truth, learned, 65535.0), 1e-6);

    // Gray: one channel in, one channel out.
    cv::Mat gray;
    cv::cvtColor(small_, gray, cv::COLOR_BGR2GRAY);
    const fs::path gray_png = folder_ / "gray.png", gray_out = folder_ / "gray";
    ASSERT_TRUE(cv::imwrite(gray_png.string(), gray));
    const auto gray_run = lake(gray_png, gray_out, "");
    ASSERT_EQ(gray_run.exit_code, 0) << gray_run.output;
    for (const char* name : {"ground_truth.png", "prediction.png", "bilinear.png"})
        EXPECT_EQ(cv::imread((gray_out / name).string(), cv::IMREAD_UNCHANGED).type(), CV_8UC1) << name;

    // RGBA with a transparent half: the alpha is carried into the prediction, and Train says it
    // does not learn it.
    cv::Mat bgra;
    cv::cvtColor(small_, bgra, cv::COLOR_BGR2BGRA);
    for (int y = 0; y < bgra.rows; ++y)
        for (int x = bgra.cols / 2; x < bgra.cols; ++x) bgra.at<cv::Vec4b>(y, x)[3] = 0;
    const fs::path rgba_png = folder_ / "rgba.png", rgba_out = folder_ / "rgba";
    ASSERT_TRUE(cv::imwrite(rgba_png.string(), bgra));
    const auto rgba_run = lake(rgba_png, rgba_out, "");
    ASSERT_EQ(rgba_run.exit_code, 0) << rgba_run.output;
    EXPECT_NE(rgba_run.output.find("alpha channel is not learned"), std::string::npos) << rgba_run.output;
    for (const char* name : {"ground_truth.png", "prediction.png", "bilinear.png"}) {
        const cv::Mat saved = cv::imread((rgba_out / name).string(), cv::IMREAD_UNCHANGED);
        ASSERT_EQ(saved.type(), CV_8UC4) << name;
        EXPECT_EQ(saved.at<cv::Vec4b>(10, 5)[3], 255) << name;
        EXPECT_EQ(saved.at<cv::Vec4b>(10, 60)[3], 0) << name;
    }
}

TEST_F(LakeFidelity, FloatExrGivesFloatExrsAndMetricsOnFloats) {
    cv::Mat linear;
    small_.convertTo(linear, CV_32F, 1.0 / 255.0);
    linear.at<cv::Vec3f>(0, 0) = cv::Vec3f(0.123456789f, 1e-6f, 0.5f); // no 8- or 16-bit value
    const fs::path exr = folder_ / "linear.exr", out = folder_ / "exr";
    ASSERT_TRUE(cv::imwrite(exr.string(), linear));
    const auto run = lake(exr, out, "", " --set format=exr");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_EQ(run.output.find("warning: the image came from"), std::string::npos) << run.output;
    for (const char* name : {"ground_truth.exr", "prediction.exr", "bilinear.exr"})
        EXPECT_EQ(cv::imread((out / name).string(), cv::IMREAD_UNCHANGED).type(), CV_32FC3) << name;
    // The ground truth comes back bit for bit.
    const cv::Mat truth = cv::imread((out / "ground_truth.exr").string(), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(truth.size(), linear.size());
    EXPECT_EQ(cv::norm(truth, linear, cv::NORM_INF), 0.0);
    const json metrics = json::parse(read_bytes(out / "metrics.json"));
    EXPECT_EQ(metrics["metrics_on"], "32-bit float values, as saved");
    const cv::Mat learned = cv::imread((out / "prediction.exr").string(), cv::IMREAD_UNCHANGED);
    EXPECT_NEAR(metrics["psnr_learned"].get<double>(), cv::PSNR(truth, learned, 1.0), 1e-4);
}

} // namespace
