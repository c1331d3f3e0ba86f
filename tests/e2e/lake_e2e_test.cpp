// Runs graphs/lake.yaml with the built `fieldflow` on lavapipe (a quarter-size leuvenA.jpg and a
// short schedule so it takes about a minute) and checks every output: files present, images of
// the right size, metrics.json's PSNRs equal to cv::PSNR on the written PNGs, learned beating
// bilinear, a loadable model, and a self-contained report. It runs the dense grid
// (`--set encoding=dense_grid`, one --set from the graph's hash default): its grid, feature
// snapshots and baseline have sizes known here; the default encoding is run by
// ff_models_cli_test (ModelCommands.LakeGraphLearnsWithTheHashEncodingByDefault).
#include "opencv_ssim.hpp"
#include "run_command.hpp"
#include <fieldflow/engine/model_file.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSteps = 400;
constexpr int kBatch = 2048;

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

using Result = ff::test::CommandResult;

Result run(const std::string& command) { return ff::test::run_command(command); }

class LakeGraph : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        folder_ = fs::temp_directory_path() / ("ff_e2e_lake_" + std::to_string(::getpid()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
        cv::Mat photo = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR);
        ASSERT_FALSE(photo.empty());
        cv::Mat small;
        cv::resize(photo, small, cv::Size(188, 141), 0, 0, cv::INTER_AREA);
        input_ = folder_ / "input.png";
        ASSERT_TRUE(cv::imwrite(input_.string(), small));
        output_ = folder_ / "out";
        const std::string command = std::string(FF_FIELDFLOW_EXE) + " run " + FF_LAKE_GRAPH +
                                    " --set input=" + input_.string() + " --set output=" +
                                    output_.string() + " --set steps=" + std::to_string(kSteps) +
                                    " --set batch=" + std::to_string(kBatch) +
                                    " --set encoding=dense_grid --device cpu --no-cache";
        result_ = run(command);
    }
    static void TearDownTestSuite() {
        if (!::testing::Test::HasFailure()) fs::remove_all(folder_);
    }

    static cv::Mat image(const char* name) { return cv::imread((output_ / name).string(), cv::IMREAD_UNCHANGED); }

    static inline fs::path folder_, input_, output_;
    static inline Result result_;
};

} // namespace

TEST_F(LakeGraph, RunSucceeds) {
    ASSERT_EQ(result_.exit_code, 0) << result_.output;
    // Not a terminal: progress comes as plain lines, and the run ends with its summary.
    EXPECT_NE(result_.output.find("train"), std::string::npos) << result_.output;
    EXPECT_EQ(result_.output.find('\r'), std::string::npos) << "terminal redraws in a pipe";
}

TEST_F(LakeGraph, EveryOutputFileExists) {
    ASSERT_EQ(result_.exit_code, 0) << result_.output;
    for (const char* name : {"prediction.png", "bilinear.png", "ground_truth.png", "metrics.json", "same_bytes.jpg", "same_bytes.webp",
                             "report.html", "model.ffm", "snapshots/training_log.csv",
                             "snapshots/training_log.png"})
        EXPECT_TRUE(fs::is_regular_file(output_ / name)) << name;
    for (int step : {1, 10, 100, kSteps}) {
        for (const char* kind : {"prediction", "feature"}) {
            fs::path snapshot = output_ / "snapshots" / (std::string(kind) + "_at_" + std::to_string(step) + ".png");
            cv::Mat picture = cv::imread(snapshot.string());
            ASSERT_FALSE(picture.empty()) << snapshot;
            EXPECT_EQ(picture.size(), std::string(kind) == "feature" ? cv::Size(47, 35) : cv::Size(188, 141))
                << snapshot;
        }
    }
    // No temporary files left behind by the atomic writes.
    for (const auto& entry : fs::recursive_directory_iterator(output_))
        EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
    for (const char* name : {"prediction.png", "bilinear.png", "ground_truth.png"}) {
        cv::Mat picture = image(name);
        ASSERT_FALSE(picture.empty()) << name;
        EXPECT_EQ(picture.size(), cv::Size(188, 141)) << name;
        EXPECT_EQ(picture.type(), CV_8UC3) << name;
    }
    // The ground truth is the input, unchanged.
    EXPECT_EQ(cv::norm(image("ground_truth.png"), cv::imread(input_.string()), cv::NORM_INF), 0.0);
}

TEST_F(LakeGraph, MetricsMatchAnIndependentComputationAndLearnedBeatsBilinear) {
    ASSERT_EQ(result_.exit_code, 0) << result_.output;
    json metrics = json::parse(read_text(output_ / "metrics.json"));
    for (const char* key : {"psnr_learned", "psnr_bilinear", "ssim_learned", "ssim_bilinear", "steps",
                            "train_seconds"})
        ASSERT_TRUE(metrics.contains(key) && metrics[key].is_number()) << key;
    ASSERT_TRUE(metrics["device"].is_string());
    EXPECT_NE(metrics["device"].get<std::string>().find("llvmpipe"), std::string::npos);
    EXPECT_EQ(metrics["steps"], kSteps);
    EXPECT_GT(metrics["train_seconds"].get<double>(), 0.0);

    const cv::Mat truth = image("ground_truth.png");
    const double psnr_learned = cv::PSNR(truth, image("prediction.png"));
    const double psnr_bilinear = cv::PSNR(truth, image("bilinear.png"));
    EXPECT_NEAR(metrics["psnr_learned"].get<double>(), psnr_learned, 1e-6);
    EXPECT_NEAR(metrics["psnr_bilinear"].get<double>(), psnr_bilinear, 1e-6);
    EXPECT_GT(psnr_learned, psnr_bilinear) << "learned " << psnr_learned << " dB vs bilinear "
                                           << psnr_bilinear << " dB";
    EXPECT_GT(metrics["ssim_learned"].get<double>(), 0.0);
    EXPECT_LE(metrics["ssim_learned"].get<double>(), 1.0);

    // The bilinear baseline is OpenCV's, at the same grid size the model learned.
    cv::Mat small, bilinear;
    cv::resize(truth, small, cv::Size(47, 35), 0, 0, cv::INTER_AREA);
    cv::resize(small, bilinear, truth.size(), 0, 0, cv::INTER_LINEAR);
    EXPECT_NEAR(cv::PSNR(truth, bilinear), psnr_bilinear, 0.05);
}

TEST_F(LakeGraph, SavedModelLoadsAndDescribesTheRun) {
    ASSERT_EQ(result_.exit_code, 0) << result_.output;
    std::string text = read_text(output_ / "model.ffm");
    std::vector<std::byte> bytes(text.size());
    std::memcpy(bytes.data(), text.data(), text.size());
    ff::engine::ModelFile file = ff::engine::decode_model_file(bytes, "model.ffm");
    EXPECT_EQ(file.image_width, 188u);
    EXPECT_EQ(file.image_height, 141u);
    EXPECT_EQ(file.model.config.grid_width, 47u);
    EXPECT_EQ(file.model.config.grid_height, 35u);
    EXPECT_EQ(file.training.steps, uint32_t(kSteps));
    EXPECT_EQ(file.training.batch, uint32_t(kBatch));
    // Stored as fp16 (the graph's default), and the report scores that stored model.
    EXPECT_EQ(file.precision, ff::engine::WeightPrecision::fp16);
    json metrics = json::parse(read_text(output_ / "metrics.json"));
    EXPECT_EQ(metrics["model_bytes"], bytes.size());
    EXPECT_EQ(metrics["model_precision"], "fp16");
    // Timings named for what they are: the steps' device time from timestamps, wall times else.
    EXPECT_FALSE(metrics.contains("train_device_seconds"));
    EXPECT_GT(metrics["train_gpu_seconds"].get<double>(), 0.0); // lavapipe has timestamps
    EXPECT_LE(metrics["train_gpu_seconds"].get<double>(), metrics["train_wall_seconds"].get<double>());
}

TEST_F(LakeGraph, ReportIsSelfContained) {
    ASSERT_EQ(result_.exit_code, 0) << result_.output;
    std::string html = read_text(output_ / "report.html");
    size_t images = 0;
    for (size_t at = 0; (at = html.find("<img src=\"data:image/png;base64,", at)) != std::string::npos; ++at)
        ++images;
    // Side by side (with JPEG and WebP at the model's bytes), the 1:1 crops (a 188x141 image has
    // room for 2x2 regions of 70, each crop 5 pictures), the 2 error maps and the win map, 4
    // snapshot steps x 2 rows, the curve.
    size_t crops = 0;
    for (size_t at = 0; (at = html.find("<div class=\"crop\" data-winner=", at)) != std::string::npos; ++at)
        ++crops;
    EXPECT_GE(crops, 1u);
    EXPECT_EQ(images, 5u + 5u * crops + 3u + 2u * 4u + 1u);
    EXPECT_NE(html.find("Region 70x70 at ("), std::string::npos);
    EXPECT_EQ(html.find("src=\"http"), std::string::npos);
    for (const char* text : {"Ground truth", "Bilinear", "Learned", "Feature grid", "llvmpipe",
                             "Model file", "Ground truth as lossless PNG", "|Learned - ground truth|",
                             "id=\"ab-split\"", "Where each wins", "<b>Trained:</b>", "<b>Bilinear:</b>",
                             "<b>JPEG:</b>", "<b>WebP:</b>", "<b>PSNR</b>", "<b>SSIM</b>", "Bytes against quality"})
        EXPECT_NE(html.find(text), std::string::npos) << text;
}

// JPEG and WebP of the ground truth at the model file's bytes: the files hold what metrics.json
// says (size, PSNR and SSIM recomputed here with OpenCV), at the highest quality whose file fits
// (OpenCV's own encode one quality up does not).
TEST_F(LakeGraph, CodecsAtTheModelsBytesMatchOpenCV) {
    ASSERT_EQ(result_.exit_code, 0) << result_.output;
    const json metrics = json::parse(read_text(output_ / "metrics.json"));
    const size_t budget = fs::file_size(output_ / "model.ffm");
    const cv::Mat truth = image("ground_truth.png");
    for (const auto& [key, file, flag] : {std::tuple{"jpeg", "same_bytes.jpg", cv::IMWRITE_JPEG_QUALITY},
                                          std::tuple{"webp", "same_bytes.webp", cv::IMWRITE_WEBP_QUALITY}}) {
        SCOPED_TRACE(key);
        const json& c = metrics[key];
        ASSERT_TRUE(c.is_object()) << metrics.dump(2);
        EXPECT_EQ(c["budget_bytes"], budget);
        EXPECT_EQ(c["bytes"], fs::file_size(output_ / file));
        EXPECT_LE(c["bytes"].get<size_t>(), budget);
        const cv::Mat decoded = image(file);
        ASSERT_EQ(decoded.size(), truth.size());
        EXPECT_NEAR(c["psnr"].get<double>(), cv::PSNR(truth, decoded), 1e-6);
        EXPECT_NEAR(c["ssim"].get<double>(), ff::test::opencv_ssim(truth, decoded), 1e-6);
        const int quality = c["quality"];
        if (quality < 100) {
            std::vector<unsigned char> above;
            std::vector<int> params = {flag, quality + 1};
            if (flag == cv::IMWRITE_JPEG_QUALITY) params.insert(params.end(), {cv::IMWRITE_JPEG_OPTIMIZE, 1});
            ASSERT_TRUE(cv::imencode(std::string(".") + (flag == cv::IMWRITE_JPEG_QUALITY ? "jpg" : "webp"), truth,
                                     above, params));
            EXPECT_GT(above.size(), budget) << "quality " << quality + 1 << " fits too";
        }
    }
}
