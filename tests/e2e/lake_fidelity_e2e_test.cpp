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

// Every file the graph wrote under `folder`: relative path -> bytes. The run's own record of what
// it wrote (.fieldflow-run) is left out: it holds each file's modification time, which differs
// from run to run by design.
std::map<std::string, std::string> tree(const fs::path& folder) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(folder)) {
        const std::string name = fs::relative(e.path(), folder).generic_string();
        if (e.is_regular_file() && name != ".fieldflow-run") files[name] = read_bytes(e.path());
    }
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

    // Runs the lake graph on `input` into `output`; "" for cache means --no-cache. With the dense
    // grid: what a run keeps does not depend on the encoding, and the dense grid trains fastest here.
    ff::test::CommandResult lake(const fs::path& input, const fs::path& output, const fs::path& cache,
                                 const std::string& more = "") {
        const std::string command = std::string(FF_FIELDFLOW_EXE) + " run " + FF_LAKE_GRAPH +
                                    " --set input=" + input.string() + " --set output=" +
                                    output.string() +
                                    " --set steps=60 --set batch=512 --set encoding=dense_grid --device cpu " +
                                    (cache.empty() ? std::string("--no-cache") : "--cache " + cache.string()) +
                                    more;
        return ff::test::run_command(command);
    }

    // Saves `image` as folder_/`file`, runs the lake graph on it without a cache into a folder of
    // the file's stem, and returns that folder (empty when the run failed).
    fs::path lake_on(const cv::Mat& image, const std::string& file, const std::string& more = "") {
        const fs::path input = folder_ / file, output = folder_ / fs::path(file).stem();
        EXPECT_TRUE(cv::imwrite(input.string(), image)) << file;
        last_run_ = lake(input, output, "", more);
        EXPECT_EQ(last_run_.exit_code, 0) << last_run_.output;
        return last_run_.exit_code == 0 ? output : fs::path();
    }

    fs::path folder_;
    cv::Mat small_; // 8-bit BGR
    ff::test::CommandResult last_run_;
};

// The three images the lake graph writes, each read back as it is on disk.
void expect_images_of_type(const fs::path& out, const std::string& extension, int type) {
    for (const char* stem : {"ground_truth", "prediction", "bilinear"}) {
        const fs::path file = out / (stem + extension);
        EXPECT_EQ(cv::imread(file.string(), cv::IMREAD_UNCHANGED).type(), type) << file;
    }
}

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
    const fs::path deep_out = lake_on(deep, "deep.png");
    ASSERT_FALSE(deep_out.empty());
    expect_images_of_type(deep_out, ".png", CV_16UC3);
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
    const fs::path gray_out = lake_on(gray, "gray.png");
    ASSERT_FALSE(gray_out.empty());
    expect_images_of_type(gray_out, ".png", CV_8UC1);

    // RGBA with a transparent half: the alpha is carried into the prediction, and Train says it
    // does not learn it.
    cv::Mat bgra;
    cv::cvtColor(small_, bgra, cv::COLOR_BGR2BGRA);
    for (int y = 0; y < bgra.rows; ++y)
        for (int x = bgra.cols / 2; x < bgra.cols; ++x) bgra.at<cv::Vec4b>(y, x)[3] = 0;
    const fs::path rgba_out = lake_on(bgra, "rgba.png");
    ASSERT_FALSE(rgba_out.empty());
    EXPECT_NE(last_run_.output.find("alpha channel is not learned"), std::string::npos) << last_run_.output;
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
    const fs::path out = lake_on(linear, "linear.exr", " --set format=exr");
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(last_run_.output.find("warning: the image came from"), std::string::npos) << last_run_.output;
    expect_images_of_type(out, ".exr", CV_32FC3);
    // The ground truth comes back bit for bit.
    const cv::Mat truth = cv::imread((out / "ground_truth.exr").string(), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(truth.size(), linear.size());
    EXPECT_EQ(cv::norm(truth, linear, cv::NORM_INF), 0.0);
    const json metrics = json::parse(read_bytes(out / "metrics.json"));
    EXPECT_EQ(metrics["metrics_on"], "32-bit float values, as saved");
    const cv::Mat learned = cv::imread((out / "prediction.exr").string(), cv::IMREAD_UNCHANGED);
    EXPECT_NEAR(metrics["psnr_learned"].get<double>(), cv::PSNR(truth, learned, 1.0), 1e-4);
}

// The main job on a CPU Vulkan driver (these tests run on lavapipe, --device cpu): Train takes the
// graph's CPU budget instead of the steps and batch it was given, says so, and the run records what
// was trained; a budget of 0 trains the run as given, without a word.
TEST_F(LakeFidelity, ACpuDriverTakesTheGraphsCpuBudgetAndSaysSo) {
    const fs::path out = lake_on(small_, "budget.png",
                                 " --set steps=40000 --set batch=16384 --set cpu_steps=7 --set cpu_batch=256");
    ASSERT_FALSE(out.empty());
    EXPECT_NE(last_run_.output.find("is a CPU Vulkan driver: training 7 steps at batch 256 instead of "
                                    "40000 at 16384"), std::string::npos) << last_run_.output;
    EXPECT_EQ(json::parse(read_bytes(out / "metrics.json"))["steps"], 7);

    const fs::path as_given = lake_on(small_, "as_given.png", " --set steps=9 --set cpu_steps=0");
    ASSERT_FALSE(as_given.empty());
    EXPECT_EQ(last_run_.output.find("CPU Vulkan driver"), std::string::npos) << last_run_.output;
    EXPECT_EQ(json::parse(read_bytes(as_given / "metrics.json"))["steps"], 9);
}


} // namespace
