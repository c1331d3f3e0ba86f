// The neural ops run through the plugin ABI on the CPU Vulkan driver (lavapipe): Train on a tiny
// image, Infer's sizes, save -> load -> infer bit-exactness, damaged model files, cancellation,
// and the Report's files.
#include "opencv_ssim.hpp"
#include "test_files.hpp"
#include "neural_host.hpp"

#include <fieldflow/engine/model_file.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <chrono>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using ff::test::read_text;
using ff::test::OpRun;
using nlohmann::json;

namespace {

// A small real photo: leuvenA.jpg reduced to 96x72 (grid auto = 24x18).
cv::Mat tiny_photo() {
    static const cv::Mat image = [] {
        cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR);
        if (bgr.empty()) throw std::runtime_error("cannot read " FF_TEST_IMAGE);
        cv::Mat small, rgb;
        cv::resize(bgr, small, cv::Size(96, 72), 0, 0, cv::INTER_AREA);
        cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
        rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
        return rgb;
    }();
    return image;
}

fs::path fresh_folder(const std::string& name) { return ff::test::fresh_folder("ff_neural_nodes", name); }

std::vector<std::byte> read_bytes(const fs::path& path) {
    std::string text = read_text(path);
    std::vector<std::byte> out(text.size());
    std::memcpy(out.data(), text.data(), text.size());
    return out;
}

void write_bytes(const fs::path& path, const std::vector<std::byte>& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// One short training run shared by the tests that only need a trained model.
struct TrainedModel {
    std::vector<std::byte> model;
    json stats;
    fs::path snapshots;
    std::vector<ff::test::ProgressEvent> progress;
};

constexpr int kSteps = 300;

const TrainedModel& trained() {
    static const TrainedModel result = [] {
        TrainedModel t;
        t.snapshots = fresh_folder("train") / "snapshots";
        OpRun run("Train");
        run.image("image", tiny_photo())
            .param("steps", kSteps)
            .param("batch", 2048)
            .param("seed", 7)
            .param("eval_interval", 100)
            .param("snapshots", t.snapshots.string());
        if (run.execute() != FF_OK) throw std::runtime_error("Train failed: " + run.error());
        t.model = run.output_blob("model");
        t.stats = json::parse(run.output_text("stats"));
        t.progress = run.progress();
        return t;
    }();
    return result;
}

ff::test::HostImage infer(const std::vector<std::byte>& model,
                          std::initializer_list<std::pair<const char*, ff::test::Param>> params = {}) {
    OpRun run("Infer");
    run.blob("model", model);
    for (const auto& [name, value] : params) run.param(name, value);
    if (run.execute() != FF_OK) throw std::runtime_error("Infer failed: " + run.error());
    return run.output_image("image");
}

double psnr_8bit(const cv::Mat& a_rgb, const cv::Mat& b_rgb) {
    cv::Mat a, b;
    a_rgb.convertTo(a, CV_8UC3, 255.0);
    b_rgb.convertTo(b, CV_8UC3, 255.0);
    return cv::PSNR(a, b);
}

} // namespace

TEST(Train, LearnsTheImageAndReportsItsStatistics) {
    const TrainedModel& t = trained();
    ff::engine::ModelFile file = ff::engine::decode_model_file(t.model, "train output");
    EXPECT_EQ(file.image_width, 96u);
    EXPECT_EQ(file.image_height, 72u);
    EXPECT_EQ(file.model.config.grid_width, 24u); // auto = image / 4
    EXPECT_EQ(file.model.config.grid_height, 18u);
    EXPECT_EQ(file.training.steps, uint32_t(kSteps));
    EXPECT_EQ(file.training.batch, 2048u);
    EXPECT_EQ(file.training.seed, 7u);

    EXPECT_EQ(t.stats["steps"], kSteps);
    EXPECT_EQ(t.stats["model_bytes"], t.model.size());
    EXPECT_EQ(t.stats["parameter_count"], file.model.parameter_count());
    EXPECT_GT(t.stats["train_seconds"].get<double>(), 0.0);
    EXPECT_GT(t.stats["steps_per_second"].get<double>(), 0.0);
    EXPECT_GT(t.stats["device_bytes"].get<double>(), 0.0);
    EXPECT_FALSE(t.stats["device"].get<std::string>().empty());
    EXPECT_EQ(t.stats["kernel_path"], "portable");
    EXPECT_EQ(t.stats["fixed_point_gradients"], true); // lavapipe has 64-bit integer atomics
    EXPECT_EQ(t.stats["snapshot_steps"], json({1, 10, 100, kSteps}));
    EXPECT_NEAR(t.stats["hidden_bias"].get<double>(), 0.1, 1e-7); // the default initial ReLU bias

    // Progress was reported up to the end, with the loss in the detail.
    ASSERT_FALSE(t.progress.empty());
    EXPECT_EQ(t.progress.back().done, uint64_t(kSteps));
    EXPECT_EQ(t.progress.back().total, uint64_t(kSteps));
    EXPECT_NE(t.progress.back().detail.find("loss"), std::string::npos);

    // The loss fell and the final render is far closer to the photo than the first snapshot.
    std::ifstream log(t.snapshots / "training_log.csv");
    std::string header, first, line, last;
    std::getline(log, header);
    std::getline(log, first);
    while (std::getline(log, line)) last = line;
    EXPECT_EQ(header, "step,loss,psnr,steps_per_second,elapsed_seconds");
    const double first_loss = std::stod(first.substr(first.find(',') + 1));
    const double last_loss = std::stod(last.substr(last.find(',') + 1));
    EXPECT_EQ(last.substr(0, last.find(',')), std::to_string(kSteps));
    EXPECT_LT(last_loss, first_loss * 0.5) << first << " -> " << last;

    cv::Mat start = cv::imread((t.snapshots / "prediction_at_1.png").string());
    cv::Mat end = cv::imread((t.snapshots / ("prediction_at_" + std::to_string(kSteps) + ".png")).string());
    ASSERT_FALSE(start.empty());
    ASSERT_FALSE(end.empty());
    cv::Mat truth;
    cv::cvtColor(tiny_photo(), truth, cv::COLOR_RGB2BGR);
    truth.convertTo(truth, CV_8UC3, 255.0);
    EXPECT_GT(cv::PSNR(truth, end), cv::PSNR(truth, start) + 3.0);
    // The stats' final PSNR (float, full image) agrees with the saved 8-bit render.
    EXPECT_NEAR(t.stats["final_psnr"].get<double>(), cv::PSNR(truth, end), 0.5);
}

TEST(Train, WritesEverySnapshotTheLogAndTheCurve) {
    const TrainedModel& t = trained();
    for (int step : {1, 10, 100, kSteps}) {
        cv::Mat prediction = cv::imread((t.snapshots / ("prediction_at_" + std::to_string(step) + ".png")).string());
        cv::Mat feature = cv::imread((t.snapshots / ("feature_at_" + std::to_string(step) + ".png")).string());
        ASSERT_FALSE(prediction.empty()) << step;
        ASSERT_FALSE(feature.empty()) << step;
        EXPECT_EQ(prediction.size(), cv::Size(96, 72));
        EXPECT_EQ(feature.size(), cv::Size(24, 18));
        double lo, hi;
        cv::minMaxLoc(feature.reshape(1), &lo, &hi);
        EXPECT_EQ(lo, 0); // min-max normalised per frame
        EXPECT_EQ(hi, 255);
    }
    EXPECT_FALSE(fs::exists(t.snapshots / "prediction_at_2.png"));
    EXPECT_FALSE(cv::imread((t.snapshots / "training_log.png").string()).empty());
    // PSNR logged at the eval steps (every 100) and the snapshots.
    std::string csv = read_text(t.snapshots / "training_log.csv");
    for (int step : {1, 10, 100, 200, kSteps}) {
        size_t at = csv.find("\n" + std::to_string(step) + ",");
        ASSERT_NE(at, std::string::npos) << step;
        std::string row = csv.substr(at + 1, csv.find('\n', at + 1) - at - 1);
        EXPECT_EQ(std::count(row.begin(), row.end(), ','), 4) << row;
        EXPECT_EQ(row.find(",,"), std::string::npos) << "no PSNR in row " << row;
    }
}

TEST(Train, SaveLoadInferIsBitExact) {
    const TrainedModel& t = trained();
    fs::path folder = fresh_folder("saveload");
    fs::path path = folder / "model.ffm";
    {
        OpRun save("SaveModel");
        save.blob("model", t.model).param("path", path.string());
        ASSERT_EQ(save.execute(), FF_OK) << save.error();
        EXPECT_EQ(save.output_blob("model"), t.model);
    }
    EXPECT_EQ(read_bytes(path), t.model);
    OpRun load("LoadModel");
    load.param("path", path.string());
    ASSERT_EQ(load.execute(), FF_OK) << load.error();
    const std::vector<std::byte> loaded = load.output_blob("model");

    ff::test::HostImage direct = infer(t.model);
    ff::test::HostImage reloaded = infer(loaded);
    ASSERT_EQ(direct.pixels.size(), reloaded.pixels.size());
    EXPECT_EQ(0, std::memcmp(direct.pixels.data(), reloaded.pixels.data(),
                             direct.pixels.size() * sizeof(float)));
    // And it is the trained model's own render: the final snapshot, saved as 8 bits.
    cv::Mat rendered8;
    cv::cvtColor(ff::test::rgb_from_image(reloaded), rendered8, cv::COLOR_RGB2BGR);
    rendered8.convertTo(rendered8, CV_8UC3, 255.0);
    cv::Mat snapshot = cv::imread((t.snapshots / ("prediction_at_" + std::to_string(kSteps) + ".png")).string());
    ASSERT_EQ(snapshot.size(), rendered8.size());
    EXPECT_EQ(cv::norm(snapshot, rendered8, cv::NORM_INF), 0.0);
    fs::remove_all(folder);
}

TEST(Train, SnapshotsAreRenderedAtTheirPreviewSize) {
    // snapshot_size bounds the snapshot images (so a large photo's snapshots cost what a small
    // one's do): the prediction is rendered at that size, not scaled from a full-size render, so it
    // equals Infer at the same size; the 24x18 feature grid is scaled down to it.
    const fs::path folder = fresh_folder("snapshot_size") / "snapshots";
    OpRun run("Train");
    run.image("image", tiny_photo())
        .param("steps", 20)
        .param("batch", 512)
        .param("snapshot_steps", std::vector<int64_t>{20})
        .param("snapshot_size", 16)
        .param("snapshots", folder.string());
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const cv::Mat prediction = cv::imread((folder / "prediction_at_20.png").string());
    const cv::Mat feature = cv::imread((folder / "feature_at_20.png").string());
    EXPECT_EQ(prediction.size(), cv::Size(16, 12));
    EXPECT_EQ(feature.size(), cv::Size(16, 12));
    cv::Mat inferred;
    cv::cvtColor(ff::test::rgb_from_image(infer(run.output_blob("model"), {{"width", int64_t(16)}})), inferred,
                 cv::COLOR_RGB2BGR);
    inferred.convertTo(inferred, CV_8UC3, 255.0);
    EXPECT_EQ(cv::norm(prediction, inferred, cv::NORM_INF), 0.0);
}

TEST(Infer, SizeFollowsTheParams) {
    const TrainedModel& t = trained();
    auto size = [](const ff::test::HostImage& i) { return std::make_pair(i.width, i.height); };
    EXPECT_EQ(size(infer(t.model)), std::make_pair(96u, 72u));
    EXPECT_EQ(size(infer(t.model, {{"width", int64_t(48)}})), std::make_pair(48u, 36u));
    EXPECT_EQ(size(infer(t.model, {{"height", int64_t(144)}})), std::make_pair(192u, 144u));
    EXPECT_EQ(size(infer(t.model, {{"width", int64_t(50)}, {"height", int64_t(20)}})), std::make_pair(50u, 20u));
    ff::test::HostImage doubled = infer(t.model, {{"scale", 2.0}});
    EXPECT_EQ(size(doubled), std::make_pair(192u, 144u));
    // A 2x render is the same picture at twice the resolution: downscaled, it matches the 1x one.
    cv::Mat half;
    cv::resize(ff::test::rgb_from_image(doubled), half, cv::Size(96, 72), 0, 0, cv::INTER_AREA);
    EXPECT_GT(psnr_8bit(ff::test::rgb_from_image(infer(t.model)), half), 25.0);

    OpRun both("Infer");
    both.blob("model", t.model).param("width", 10).param("scale", 2.0);
    EXPECT_EQ(both.validate(), FF_ERROR);
    EXPECT_EQ(both.error_param(), "scale");
    EXPECT_EQ(both.execute(), FF_ERROR);
    EXPECT_NE(both.error().find("not both"), std::string::npos) << both.error();
}

TEST(Infer, DamagedModelIsAClearError) {
    std::vector<std::byte> model = trained().model;
    model[model.size() / 2] ^= std::byte(0x10);
    OpRun run("Infer");
    run.blob("model", model);
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_EQ(run.error(), "input 'model': checksum mismatch (corrupt)");
}

// The render runs on a thread of its own: while it runs the node shows it (a progress line every
// poll), and a cancel then is answered at once, the render abandoned. (Before, the node sat in the
// engine call until the render was read back, so there was no progress to cancel at.)
TEST(Infer, ACancelDuringTheRenderIsAnsweredAtOnce) {
    const TrainedModel& t = trained();
    const auto start = std::chrono::steady_clock::now();
    infer(t.model, {{"width", int64_t(800)}, {"height", int64_t(600)}});
    const double render_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (render_seconds < 0.5) GTEST_SKIP() << "the render takes " << render_seconds << " s here (a fast GPU)";

    OpRun run("Infer");
    bool rendering = false;
    run.blob("model", t.model).param("width", 800).param("height", 600).on_progress([&](const ff::test::ProgressEvent& e) {
        rendering = rendering || e.detail.rfind("rendering 800x600", 0) == 0;
        return rendering;
    });
    EXPECT_EQ(run.execute(), FF_CANCELLED) << run.error();
    EXPECT_TRUE(rendering);
    EXPECT_FALSE(run.has_output("image"));
}

// fp16 storage: save, load, render, and the PSNR the report gives is the stored model's (computed
// here again on the reloaded model's render); the file is about half the fp32 one, and the stored
// weights cost little against the trained ones.
TEST(SaveModel, Fp16RoundTripGivesThePsnrTheReportShows) {
    const TrainedModel& t = trained();
    const fs::path folder = fresh_folder("save_fp16");
    const fs::path path = folder / "model.ffm";
    OpRun save("SaveModel");
    save.blob("model", t.model).param("path", path.string()).param("precision", std::string("fp16"));
    ASSERT_EQ(save.execute(), FF_OK) << save.error();
    const std::vector<std::byte> stored = save.output_blob("model");
    EXPECT_EQ(read_bytes(path), stored);
    EXPECT_LT(stored.size(), t.model.size() * 0.55);
    EXPECT_EQ(ff::engine::decode_model_file(stored, "stored").precision, ff::engine::WeightPrecision::fp16);

    OpRun load("LoadModel");
    load.param("path", path.string());
    ASSERT_EQ(load.execute(), FF_OK) << load.error();
    const cv::Mat reloaded = ff::test::rgb_from_image(infer(load.output_blob("model")));
    const cv::Mat trained_render = ff::test::rgb_from_image(infer(t.model));
    const cv::Mat truth = tiny_photo();
    cv::Mat small, bilinear;
    cv::resize(truth, small, cv::Size(24, 18), 0, 0, cv::INTER_AREA);
    cv::resize(small, bilinear, truth.size(), 0, 0, cv::INTER_LINEAR);
    OpRun report("Report");
    report.image("ground_truth", truth).image("bilinear", bilinear).image("learned", ff::test::rgb_from_image(infer(stored)))
        .blob("model", stored).param("path", (folder / "report.html").string()).param("codecs", std::string(""));
    ASSERT_EQ(report.execute(), FF_OK) << report.error();
    const json metrics = json::parse(report.output_text("metrics"));
    EXPECT_NEAR(metrics["psnr_learned"].get<double>(), psnr_8bit(truth, reloaded), 1e-9);
    EXPECT_EQ(metrics["model_bytes"], stored.size());
    EXPECT_EQ(metrics["model_precision"], "fp16");
    EXPECT_NEAR(psnr_8bit(truth, reloaded), psnr_8bit(truth, trained_render), 0.05);
    EXPECT_NE(read_text(folder / "report.html").find("fp16 weights"), std::string::npos);
    fs::remove_all(folder);
}

TEST(SaveModel, ACancelledNodeWritesNothing) {
    fs::path folder = fresh_folder("save_cancelled");
    OpRun run("SaveModel");
    run.blob("model", trained().model).param("path", (folder / "m.ffm").string()).on_progress([](const ff::test::ProgressEvent&) { return true; });
    EXPECT_EQ(run.execute(), FF_CANCELLED); // at the first chunk's progress
    EXPECT_TRUE(fs::is_empty(folder));
    fs::remove_all(folder);
}

TEST(LoadModel, EveryDamagedFileClassIsNamed) {
    const std::vector<std::byte>& good = trained().model;
    fs::path folder = fresh_folder("load");
    auto load_error = [&](const std::vector<std::byte>& bytes) {
        fs::path path = folder / "m.ffm";
        write_bytes(path, bytes);
        OpRun run("LoadModel");
        run.param("path", path.string());
        EXPECT_EQ(run.execute(), FF_ERROR);
        EXPECT_FALSE(run.has_output("model"));
        return run.error();
    };
    std::vector<std::byte> truncated(good.begin(), good.begin() + good.size() / 3);
    EXPECT_NE(load_error(truncated).find("truncated (expected " + std::to_string(good.size()) + " bytes"),
              std::string::npos);
    std::vector<std::byte> corrupt = good;
    corrupt[good.size() - 100] ^= std::byte(1);
    EXPECT_NE(load_error(corrupt).find("checksum mismatch (corrupt)"), std::string::npos);
    std::vector<std::byte> newer = good;
    std::memcpy(newer.data() + 8, "version 3", 9);
    const std::string newer_error = load_error(newer); // "version 3.<the file's minor>"
    EXPECT_NE(newer_error.find("unsupported version 3."), std::string::npos) << newer_error;
    EXPECT_NE(newer_error.find(" (this build reads 1)"), std::string::npos) << newer_error;
    std::string error = load_error({std::byte('P'), std::byte('6')});
    EXPECT_NE(error.find("not a model file"), std::string::npos) << error;
    EXPECT_EQ(error.rfind((folder / "m.ffm").string() + ": ", 0), 0u) << "names the file: " << error;

    OpRun missing("LoadModel");
    missing.param("path", (folder / "nope.ffm").string());
    EXPECT_EQ(missing.execute(), FF_ERROR);
    EXPECT_EQ(missing.error_param(), "path");
    EXPECT_NE(missing.error().find("does not exist"), std::string::npos);
    fs::remove_all(folder);
}

TEST(SaveModel, RefusesToWriteADamagedModel) {
    std::vector<std::byte> model = trained().model;
    model.resize(model.size() - 1);
    fs::path folder = fresh_folder("save");
    OpRun run("SaveModel");
    run.blob("model", model).param("path", (folder / "m.ffm").string());
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("truncated"), std::string::npos);
    EXPECT_FALSE(fs::exists(folder / "m.ffm"));
    fs::remove_all(folder);
}

TEST(Train, CancellationStopsPromptly) {
    OpRun run("Train");
    int reports = 0;
    run.image("image", tiny_photo())
        .param("steps", 1000000)
        .param("batch", 1024)
        .on_progress([&](const ff::test::ProgressEvent& event) { return ++reports >= 3; });
    EXPECT_EQ(run.execute(), FF_CANCELLED);
    EXPECT_FALSE(run.has_output("model"));
    EXPECT_EQ(reports, 3); // noticed before the next engine call
    ASSERT_FALSE(run.progress().empty());
    EXPECT_LT(run.progress().back().done, 100000u);
}

// A cancel that comes as a snapshot is due: the snapshot, encoded and written in the background,
// is complete or absent (a write stops at its next chunk and removes its temporary file; an encode
// that has not finished writes nothing), the earlier ones are there, and the training done is
// kept in the checkpoint.
TEST(Train, ACancelAtASnapshotWritesNoPartOfItAndKeepsTheCheckpoint) {
    const fs::path folder = fresh_folder("cancel_at_snapshot");
    OpRun run("Train");
    run.image("image", tiny_photo())
        .param("steps", 1000)
        .param("batch", 256)
        .param("snapshots", (folder / "snapshots").string())
        .state_dir((folder / "state").string())
        // Step 10's row, written once its evaluation is done and its snapshot is due. Not the
        // "evaluating the full image" line a slow evaluation prints at the same step: a cancel
        // then abandons the evaluation, and the trainer with it, before any checkpoint.
        .on_progress([](const ff::test::ProgressEvent& e) {
            return e.done == 10 && e.detail.rfind("evaluating", 0) != 0;
        });
    EXPECT_EQ(run.execute(), FF_CANCELLED);
    EXPECT_FALSE(cv::imread((folder / "snapshots" / "prediction_at_1.png").string()).empty());
    if (fs::exists(folder / "snapshots" / "prediction_at_10.png")) {
        EXPECT_FALSE(cv::imread((folder / "snapshots" / "prediction_at_10.png").string()).empty());
    }
    EXPECT_TRUE(fs::exists(folder / "state" / "checkpoint.ffckpt"));
    for (const auto& entry : fs::directory_iterator(folder / "snapshots"))
        EXPECT_NE(entry.path().filename().string().rfind(".prediction", 0), 0u) << entry.path(); // no temporary
    fs::remove_all(folder);
}

TEST(Train, BadParamsAreNamed) {
    auto param_error = [](const char* name, ff::test::Param value) {
        OpRun run("Train");
        run.param(name, value);
        EXPECT_EQ(run.validate(), FF_ERROR) << name;
        return run.error_param();
    };
    EXPECT_EQ(param_error("hidden_width", int64_t(48)), "hidden_width");
    EXPECT_EQ(param_error("grid", std::string("12 by 7")), "grid");
    EXPECT_EQ(param_error("snapshot_steps", std::vector<int64_t>{1, 50000}), "snapshot_steps");
    // A device that is not there fails validation, before any work (no machine has 1000 GPUs).
    EXPECT_EQ(param_error("device", std::string("999")), "device");
    EXPECT_EQ(param_error("device", std::string("gpu")), "device");
    OpRun present("Train");
    present.param("device", std::string("0"));
    EXPECT_EQ(present.validate(), FF_OK) << present.error();
}

// The float RGB image's size as an 8-bit PNG at zlib level 9, straight from OpenCV.
size_t level9_png_bytes(const cv::Mat& rgb) {
    std::vector<unsigned char> png;
    cv::Mat bgr8;
    cv::cvtColor(rgb, bgr8, cv::COLOR_RGB2BGR);
    bgr8.convertTo(bgr8, CV_8UC3, 255.0);
    cv::imencode(".png", bgr8, png, {cv::IMWRITE_PNG_COMPRESSION, 9});
    return png.size();
}

TEST(Report, WritesPageAndMetricsMatchingAnIndependentComputation) {
    const TrainedModel& t = trained();
    const cv::Mat truth = tiny_photo();
    const cv::Mat learned = ff::test::rgb_from_image(infer(t.model));
    cv::Mat small, bilinear;
    cv::resize(truth, small, cv::Size(24, 18), 0, 0, cv::INTER_AREA);
    cv::resize(small, bilinear, truth.size(), 0, 0, cv::INTER_LINEAR);

    fs::path folder = fresh_folder("report");
    OpRun run("Report");
    run.image("ground_truth", truth)
        .image("bilinear", bilinear)
        .image("learned", learned)
        .text("stats", t.stats.dump())
        .blob("model", t.model)
        .param("path", (folder / "report.html").string())
        .param("metrics", (folder / "metrics.json").string())
        .param("snapshots", t.snapshots.string())
        .param("thumbnail", (folder / "thumbnail.png").string())
        .param("jpeg", (folder / "same_bytes.jpg").string())
        .param("webp", (folder / "same_bytes.webp").string())
        .param("title", "Tiny lake");
    ASSERT_EQ(run.execute(), FF_OK) << run.error();

    // The batch index's picture: the learned image and its gain map, 72 pixels high.
    const cv::Mat thumbnail = cv::imread((folder / "thumbnail.png").string(), cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(thumbnail.empty());
    EXPECT_EQ(thumbnail.rows, 72);
    EXPECT_EQ(thumbnail.cols, 2 * 96);

    json metrics = json::parse(read_text(folder / "metrics.json"));
    EXPECT_EQ(json::parse(run.output_text("metrics")), metrics);
    EXPECT_NEAR(metrics["psnr_learned"].get<double>(), psnr_8bit(truth, learned), 1e-6);
    EXPECT_NEAR(metrics["psnr_bilinear"].get<double>(), psnr_8bit(truth, bilinear), 1e-6);
    for (const char* key : {"ssim_learned", "ssim_bilinear"}) {
        EXPECT_GT(metrics[key].get<double>(), 0.0) << key;
        EXPECT_LE(metrics[key].get<double>(), 1.0) << key;
    }
    EXPECT_EQ(metrics["steps"], kSteps);
    EXPECT_EQ(metrics["train_seconds"], t.stats["train_seconds"]);
    EXPECT_EQ(metrics["device"], t.stats["device"]);
    EXPECT_EQ(metrics["model_bytes"], t.model.size());
    const std::string html = read_text(folder / "report.html");
    const size_t png_bytes = level9_png_bytes(truth);
    EXPECT_EQ(metrics["png_bytes"], png_bytes);
    EXPECT_FALSE(metrics.contains("compression_ratio")); // a lossy model against a lossless PNG misleads
    EXPECT_EQ(metrics["bilinear_grid_width"], 24);
    EXPECT_EQ(metrics["bilinear_values"], 24 * 18 * 3);
    EXPECT_EQ(metrics["asked_steps"], kSteps);
    // Which model ran, and the other encoding's size: Train's default hash grid, its table sized
    // to as many parameters as the dense model has (hash_table_for_count): 2^10 rows a level here.
    EXPECT_EQ(metrics["model_summary"], t.stats["model_summary"]);
    EXPECT_EQ(metrics["other_encoding"]["set"], "encoding=hash_grid");
    EXPECT_EQ(metrics["other_encoding"]["parameter_count"], 31863);
    EXPECT_NE(metrics["other_encoding"]["model_summary"].get<std::string>().find("(2^10 rows"), std::string::npos)
        << metrics["other_encoding"].dump();
    EXPECT_NE(html.find("The other encoding (--set encoding=hash_grid)"), std::string::npos);

    // JPEG and WebP at the model's bytes: the files written hold what metrics.json says, scored
    // again here with OpenCV (cv::PSNR, an SSIM on OpenCV's Gaussian filter).
    cv::Mat truth8;
    truth.convertTo(truth8, CV_8UC3, 255.0);
    for (const char* codec : {"jpeg", "webp"}) {
        SCOPED_TRACE(codec);
        const json& c = metrics[codec];
        ASSERT_TRUE(c.is_object()) << metrics.dump(2);
        EXPECT_EQ(c["budget_bytes"], t.model.size());
        const fs::path file = folder / (std::string("same_bytes.") + (codec == std::string("jpeg") ? "jpg" : "webp"));
        ASSERT_TRUE(fs::is_regular_file(file));
        EXPECT_EQ(c["bytes"], fs::file_size(file));
        EXPECT_LE(c["bytes"].get<size_t>(), t.model.size());
        cv::Mat decoded = cv::imread(file.string(), cv::IMREAD_COLOR);
        ASSERT_EQ(decoded.size(), truth.size());
        cv::cvtColor(decoded, decoded, cv::COLOR_BGR2RGB);
        EXPECT_NEAR(c["psnr"].get<double>(), cv::PSNR(truth8, decoded), 1e-6);
        EXPECT_NEAR(c["ssim"].get<double>(), ff::test::opencv_ssim(truth8, decoded), 1e-6);
        EXPECT_GE(c["curve"].size(), 10u);
        EXPECT_NE(html.find("<b>" + std::string(codec == std::string("jpeg") ? "JPEG" : "WebP") +
                            ":</b> the ground truth saved as"), std::string::npos);
    }
    // The page explains itself: the budget line, the baseline, the metrics, the plot.
    for (const char* text : {"<b>Trained:</b> 300 steps at batch 2,048", "<b>Bilinear:</b> the ground truth shrunk",
                             "24x18 pixels, 1,296 values", "<b>PSNR</b>", "sigma 1.5", "Bytes against quality",
                             "<polyline", "Where each wins", "Training loop, wall time"})
        EXPECT_NE(html.find(text), std::string::npos) << text;
    EXPECT_EQ(html.find("Compression"), std::string::npos);

    EXPECT_NE(html.find("<title>Tiny lake</title>"), std::string::npos);
    for (const char* label : {"Ground truth", "Bilinear", "Learned", "Prediction", "Feature grid"})
        EXPECT_NE(html.find(label), std::string::npos) << label;
    for (int step : {1, 10, 100, kSteps})
        EXPECT_NE(html.find("<th>Step " + std::to_string(step) + "</th>"), std::string::npos) << step;
    // 5 side by side (with JPEG and WebP) + 2 error maps and the win map + 5 per crop + 4
    // snapshots x 2 rows + the training curve, all embedded; a 96x72 image has 2x2 regions of 36.
    size_t images = 0, crops = 0;
    for (size_t at = 0; (at = html.find("<img src=\"data:image/png;base64,", at)) != std::string::npos; ++at)
        ++images;
    for (size_t at = 0; (at = html.find("<div class=\"crop\" data-winner=", at)) != std::string::npos; ++at)
        ++crops;
    EXPECT_GE(crops, 1u);
    EXPECT_LE(crops, 4u);
    EXPECT_NE(html.find("Region 36x36 at ("), std::string::npos);
    EXPECT_EQ(images, 5u + 3u + 5u * crops + 8u + 1u);
    EXPECT_NE(html.find("|Learned - ground truth|"), std::string::npos);
    EXPECT_NE(html.find("class=\"legend-bar\""), std::string::npos);
    EXPECT_NE(html.find("id=\"ab-split\""), std::string::npos);
    EXPECT_NE(html.find("<div class=\"crop-images\" tabindex=\"0\" role=\"button\" data-zoom=\"1\""),
              std::string::npos); // zoomable from the keyboard
    EXPECT_NE(html.find(t.stats["device"].get<std::string>()), std::string::npos);

    // Different sizes cannot be compared.
    OpRun mismatch("Report");
    cv::Mat smaller;
    cv::resize(learned, smaller, cv::Size(48, 36));
    mismatch.image("ground_truth", truth).image("bilinear", bilinear).image("learned", smaller)
        .param("path", (folder / "other.html").string());
    EXPECT_EQ(mismatch.execute(), FF_ERROR);
    EXPECT_NE(mismatch.error().find("48x36"), std::string::npos) << mismatch.error();
    EXPECT_FALSE(fs::exists(folder / "other.html"));
    fs::remove_all(folder);
}

// PngSize gives the figure Report computes itself (exact for a small image: one level-9 encode),
// and Report takes it from its 'png_size' input when a graph computes it beside training; input
// that is not PngSize's output is named.
TEST(Report, TakesThePngSizeFromAPngSizeNode) {
    const cv::Mat truth = tiny_photo();
    OpRun size_op("PngSize");
    size_op.image("image", truth);
    ASSERT_EQ(size_op.execute(), FF_OK) << size_op.error();
    const json size = json::parse(size_op.output_text("json"));
    EXPECT_EQ(size["png_bytes"], level9_png_bytes(truth));
    EXPECT_EQ(size["estimated"], false);

    const fs::path folder = fresh_folder("report_png_size");
    OpRun run("Report");
    // A figure Report would never compute, so the test sees which one it used.
    run.image("ground_truth", truth).image("bilinear", truth).image("learned", truth)
        .text("png_size", R"({"png_bytes": 123456, "estimated": true})")
        .param("path", (folder / "report.html").string())
        .param("metrics", (folder / "metrics.json").string());
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const json metrics = json::parse(read_text(folder / "metrics.json"));
    EXPECT_EQ(metrics["png_bytes"], 123456);
    EXPECT_EQ(metrics["png_bytes_estimated"], true);

    OpRun bad("Report");
    bad.image("ground_truth", truth).image("bilinear", truth).image("learned", truth)
        .text("png_size", R"({"bytes": 1})")
        .param("path", (folder / "bad.html").string());
    EXPECT_EQ(bad.execute(), FF_ERROR);
    EXPECT_NE(bad.error().find("input 'png_size'"), std::string::npos) << bad.error();
    EXPECT_FALSE(fs::exists(folder / "bad.html"));
    fs::remove_all(folder);
}

// A large, incompressible image (noise): the page still stays within 10 MB, built from scaled-down
// views, with full-resolution crops.
TEST(Report, PageStaysWithinTenMegabytesForALargeNoisyImage) {
    cv::Mat truth(2400, 3200, CV_32FC3), noise(truth.size(), CV_32FC3);
    cv::RNG(3).fill(truth, cv::RNG::UNIFORM, 0.0, 1.0);
    cv::RNG(4).fill(noise, cv::RNG::NORMAL, 0.0, 0.05);
    const cv::Mat learned = truth + noise, bilinear = truth + 2 * noise;
    fs::path folder = fresh_folder("report_large");
    OpRun run("Report");
    run.image("ground_truth", truth).image("bilinear", bilinear).image("learned", learned)
        .param("path", (folder / "report.html").string());
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const std::string html = read_text(folder / "report.html");
    EXPECT_LE(html.size(), 10'000'000u);
    EXPECT_GT(html.size(), 1'000'000u); // not emptied to get there
    EXPECT_NE(html.find("scaled down (area average) from 3200x2400"), std::string::npos);
    EXPECT_NE(html.find("Region 160x160 at"), std::string::npos); // crops at full resolution
    fs::remove_all(folder);
}

// A large photo's snapshots (its feature grid is megapixels too: 2048x2048 at 8192x8192) are shown
// as thumbnails in both rows of the strip, so they do not take the page over its bound.
TEST(Report, LargeSnapshotsStayThumbnails) {
    cv::Mat truth(600, 800, CV_32FC3);
    cv::RNG(6).fill(truth, cv::RNG::UNIFORM, 0.0, 1.0);
    fs::path folder = fresh_folder("report_large_snapshots");
    fs::path snapshots = folder / "snapshots";
    fs::create_directories(snapshots);
    cv::Mat noise(1400, 1400, CV_8UC3);
    size_t written = 0;
    for (int step : {1, 10, 100, 1000, 10000, 40000}) {
        cv::RNG(step).fill(noise, cv::RNG::UNIFORM, 0, 256);
        for (const char* kind : {"prediction", "feature"}) {
            const fs::path file = snapshots / (std::string(kind) + "_at_" + std::to_string(step) + ".png");
            ASSERT_TRUE(cv::imwrite(file.string(), noise));
            written += fs::file_size(file);
        }
    }
    ASSERT_GT(written, 60'000'000u); // far over the page's bound if embedded as written
    OpRun run("Report");
    run.image("ground_truth", truth).image("bilinear", truth).image("learned", truth)
        .param("path", (folder / "report.html").string()).param("snapshots", snapshots.string());
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const std::string html = read_text(folder / "report.html");
    EXPECT_LE(html.size(), 10'000'000u);
    for (const char* kind : {"prediction", "feature"})
        EXPECT_NE(html.find("snapshots/" + std::string(kind) + "_at_40000.png"), std::string::npos) << kind;
    fs::remove_all(folder);
}

// An interrupt during the metrics stops the report at its next check and leaves no file.
TEST(Report, InterruptStopsItAndWritesNothing) {
    cv::Mat truth(1500, 2000, CV_32FC3);
    cv::RNG(5).fill(truth, cv::RNG::UNIFORM, 0.0, 1.0);
    fs::path folder = fresh_folder("report_cancel");
    OpRun run("Report");
    int reports = 0;
    run.image("ground_truth", truth).image("bilinear", truth).image("learned", truth)
        .param("path", (folder / "report.html").string())
        .param("metrics", (folder / "metrics.json").string())
        .on_progress([&](const ff::test::ProgressEvent&) { return ++reports >= 2; });
    EXPECT_EQ(run.execute(), FF_CANCELLED) << run.error();
    EXPECT_EQ(reports, 2); // stopped at the check after the flag went up
    EXPECT_FALSE(fs::exists(folder / "report.html"));
    EXPECT_FALSE(fs::exists(folder / "metrics.json"));
}

// Degenerate images (1x1, 1xN, one colour): a learned image equal to the ground truth has an
// infinite PSNR. metrics.json holds valid JSON with null there (never cv::PSNR's ~361 dB stand-in)
// and the page and the log say "identical"; every other number stays finite.
TEST(Report, IdenticalImagesAreSaidSoAndTheJsonStaysValid) {
    const fs::path folder = fresh_folder("report_identical");
    for (const cv::Size size : {cv::Size(1, 1), cv::Size(1, 7), cv::Size(20, 12)}) {
        SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height));
        const cv::Mat truth(size, CV_32FC3, cv::Scalar(0.2, 0.4, 0.6)); // one colour
        const cv::Mat bilinear(size, CV_32FC3, cv::Scalar(0.2, 0.4, 0.5));
        OpRun run("Report");
        run.image("ground_truth", truth).image("bilinear", bilinear).image("learned", truth)
            .param("path", (folder / "report.html").string())
            .param("metrics", (folder / "metrics.json").string());
        ASSERT_EQ(run.execute(), FF_OK) << run.error();

        const std::string text = read_text(folder / "metrics.json");
        const json metrics = json::parse(text); // throws on invalid JSON
        EXPECT_TRUE(metrics["psnr_learned"].is_null()) << text;
        EXPECT_EQ(metrics["learned_identical"], true);
        EXPECT_NEAR(metrics["psnr_bilinear"].get<double>(), psnr_8bit(truth, bilinear), 1e-6);
        EXPECT_EQ(metrics["bilinear_identical"], false);
        for (const auto& [key, value] : metrics.items()) {
            if (value.is_number()) {
                EXPECT_TRUE(std::isfinite(value.get<double>())) << key;
            }
        }
        EXPECT_EQ(text.find("361."), std::string::npos) << text;

        const std::string html = read_text(folder / "report.html");
        EXPECT_NE(html.find("identical to the ground truth (PSNR infinite)"), std::string::npos);
        EXPECT_NE(html.find("not a number (an image is identical to the ground truth)"), std::string::npos);
        ASSERT_FALSE(run.logs().empty());
        EXPECT_NE(run.logs().back().find("learned identical to the ground truth"), std::string::npos)
            << run.logs().back();
    }
    fs::remove_all(folder);
}
