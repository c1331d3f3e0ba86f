// The other models' ops through the plugin ABI on lavapipe: a SIREN (TrainSiren) improves clearly
// on its starting point, its JSON weights load back bit-exactly, `limit` trims the dataset, splats
// (TrainSplats) train and produce a model (or say they are not in this build), Train learns with
// the parameterless frequency encoding, and CompareReport's table matches an independent
// computation.
#include "neural_host.hpp"
#include "test_files.hpp"

#include <fieldflow/engine/model_file.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ff::test::OpRun;
using nlohmann::json;

namespace {

// leuvenA.jpg reduced to 48x36: big enough to have structure, small enough for lavapipe.
cv::Mat small_photo() {
    static const cv::Mat image = [] {
        cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR);
        if (bgr.empty()) throw std::runtime_error("cannot read " FF_TEST_IMAGE);
        cv::Mat small, rgb;
        cv::resize(bgr, small, cv::Size(48, 36), 0, 0, cv::INTER_AREA);
        cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
        rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
        return rgb;
    }();
    return image;
}

fs::path fresh_folder(const std::string& name) { return ff::test::fresh_folder("ff_neural_siren", name); }

double psnr_8bit(const cv::Mat& a_rgb, const cv::Mat& b_rgb) {
    cv::Mat a, b;
    a_rgb.convertTo(a, CV_8UC3, 255.0);
    b_rgb.convertTo(b, CV_8UC3, 255.0);
    return cv::PSNR(a, b);
}

struct Trained {
    std::vector<std::byte> model;
    json stats;
};

Trained train_siren(int steps) {
    OpRun run("TrainSiren");
    run.image("image", small_photo())
        .param("hidden_width", 32)
        .param("hidden_layers", 2)
        .param("steps", steps)
        .param("batch", 512)
        .param("lr", ff::test::Param(1e-3))
        .param("seed", 3);
    if (run.execute() != FF_OK) throw std::runtime_error("Train failed: " + run.error());
    return {run.output_blob("model"), json::parse(run.output_text("stats"))};
}

cv::Mat infer(const std::vector<std::byte>& model) {
    OpRun run("Infer");
    run.blob("model", model);
    if (run.execute() != FF_OK) throw std::runtime_error("Infer failed: " + run.error());
    return ff::test::rgb_from_image(run.output_image("image"));
}

const Trained& trained_siren() {
    static const Trained t = train_siren(300);
    return t;
}

} // namespace

TEST(TrainSiren, ImprovesClearlyOnItsStartingPoint) {
    const Trained start = train_siren(1);
    const Trained& done = trained_siren();
    const double psnr_start = psnr_8bit(small_photo(), infer(start.model));
    const double psnr_done = psnr_8bit(small_photo(), infer(done.model));
    EXPECT_GT(psnr_done, psnr_start + 8.0) << "start " << psnr_start << " dB, after 150 steps " << psnr_done;
    EXPECT_GT(psnr_done, 22.0);
    EXPECT_EQ(done.stats["model"], "siren");
    EXPECT_EQ(done.stats["omega"], 30.0);
    // 2 -> 32 -> 32 -> 3, no grid.
    EXPECT_EQ(done.stats["parameter_count"], (2 * 32 + 32) + (32 * 32 + 32) + (32 * 3 + 3));
    EXPECT_NEAR(done.stats["final_psnr"].get<double>(), psnr_done, 0.5); // float vs 8-bit
    {
        ff::engine::ModelFile file = ff::engine::decode_model_file(done.model, "siren");
        EXPECT_EQ(file.kind, ff::engine::ModelKind::siren);
        EXPECT_EQ(file.image_width, 48u);
    }
}

TEST(WeightsJson, SaveLoadInferIsBitExact) {
    const Trained& t = trained_siren();
    fs::path folder = fresh_folder("json");
    const fs::path path = folder / "w.json";
    OpRun save("SaveWeightsJson");
    save.blob("model", t.model).param("path", path.string());
    ASSERT_EQ(save.execute(), FF_OK) << save.error();
    EXPECT_EQ(save.output_blob("model"), t.model);

    json j = json::parse(ff::test::read_text(path));
    EXPECT_EQ(j["model"], "siren");
    ASSERT_EQ(j["layers"].size(), 3u);
    EXPECT_EQ(j["layers"][0]["in"], 2);
    EXPECT_EQ(j["layers"][0]["omega"], 30.0);
    EXPECT_EQ(j["layers"][0]["weights"].size(), 32u);
    EXPECT_EQ(j["layers"][2]["activation"], "none");

    OpRun load("LoadWeightsJson");
    load.param("path", path.string());
    ASSERT_EQ(load.execute(), FF_OK) << load.error();
    EXPECT_EQ(load.output_blob("model"), t.model); // the same model file, byte for byte
    cv::Mat a = infer(t.model), b = infer(load.output_blob("model"));
    EXPECT_EQ(cv::norm(a, b, cv::NORM_INF), 0.0);

    // Damaged weights are errors naming what is wrong.
    auto load_error = [&](const json& bad) {
        std::ofstream(folder / "bad.json") << bad.dump();
        OpRun run("LoadWeightsJson");
        run.param("path", (folder / "bad.json").string());
        EXPECT_EQ(run.execute(), FF_ERROR);
        return run.error();
    };
    json bad = j;
    bad["layers"][1]["bias"].erase(0);
    EXPECT_NE(load_error(bad).find("layers[1].bias has 31 values, expected 32"), std::string::npos);
    bad = j;
    bad["layers"][0]["weights"][4][1] = "x";
    EXPECT_NE(load_error(bad).find("layers[0].weights[4][1] is not a number"), std::string::npos);
    bad = j;
    bad["hidden_width"] = 48;
    EXPECT_NE(load_error(bad).find("hidden_width 48 must be 16, 32, 64 or 128"), std::string::npos);
    bad = j;
    bad["format"] = "other";
    EXPECT_NE(load_error(bad).find("format is not 'fieldflow-weights'"), std::string::npos);
    std::ofstream(folder / "bad.json") << "{not json";
    OpRun garbage("LoadWeightsJson");
    garbage.param("path", (folder / "bad.json").string());
    EXPECT_EQ(garbage.execute(), FF_ERROR);
    EXPECT_NE(garbage.error().find("not valid JSON"), std::string::npos) << garbage.error();
    fs::remove_all(folder);
}

TEST(TrainSiren, LimitTrainsOnTheFirstRows) {
    OpRun run("TrainSiren");
    run.image("image", small_photo()).param("hidden_width", 16)
        .param("hidden_layers", 1).param("steps", 2).param("batch", 64).param("limit", 48 * 10 + 1);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    ff::engine::ModelFile file = ff::engine::decode_model_file(run.output_blob("model"), "m");
    EXPECT_EQ(file.image_width, 48u);
    EXPECT_EQ(file.image_height, 11u); // 481 pixels, rounded up to whole rows
}

TEST(TrainSplats, TrainsOrSaysItIsNotInThisBuild) {
    auto run_splats = [](int steps) {
        auto run = std::make_unique<OpRun>("TrainSplats");
        run->image("image", small_photo()).param("splats", 200)
            .param("steps", steps).param("seed", 2).param("cpu_steps", 0);
        return run;
    };
    auto done = run_splats(200);
    ff_status status = done->execute();
#if FF_HAVE_SPLATS
    ASSERT_EQ(status, FF_OK) << done->error();
    auto start = run_splats(1);
    ASSERT_EQ(start->execute(), FF_OK) << start->error();
    const double psnr_start = psnr_8bit(small_photo(), infer(start->output_blob("model")));
    const double psnr_done = psnr_8bit(small_photo(), infer(done->output_blob("model")));
    EXPECT_GT(psnr_done, psnr_start + 3.0) << "start " << psnr_start << " dB, after 200 steps " << psnr_done;
    json stats = json::parse(done->output_text("stats"));
    EXPECT_EQ(stats["model"], "splats");
    EXPECT_EQ(stats["parameter_count"], 200 * 8);
#else
    ASSERT_EQ(status, FF_ERROR);
    EXPECT_NE(done->error().find("splat model not available in this build"), std::string::npos)
        << done->error();
#endif
}

// Train with the frequency encoding, end to end: the param reaches the engine, the model learns
// the photo (from fixed sinusoids alone: no learnable encoding), and its file names the encoding
// and its octaves, which Infer reads back.
TEST(Train, FrequencyEncodingTrainsEndToEnd) {
    auto train = [](int steps) {
        OpRun run("Train");
        run.image("image", small_photo())
            .param("encoding", std::string("frequency"))
            .param("frequency_octaves", 5)
            .param("hidden_width", 32)
            .param("steps", steps)
            .param("batch", 512)
            .param("eval_interval", 0)
            .param("seed", 3);
        if (run.execute() != FF_OK) throw std::runtime_error("Train failed: " + run.error());
        return run.output_blob("model");
    };
    const std::vector<std::byte> start = train(1), done = train(150);
    const ff::engine::ModelFile file = ff::engine::decode_model_file(done, "frequency");
    EXPECT_EQ(file.model.config.encoding.kind, ff::engine::EncodingKind::frequency);
    EXPECT_EQ(file.model.config.encoding.frequency.octaves, 5u);
    EXPECT_TRUE(file.model.encoding_params.empty());
    EXPECT_EQ(file.training.steps, 150u);
    const double psnr_start = psnr_8bit(small_photo(), infer(start));
    const double psnr_done = psnr_8bit(small_photo(), infer(done));
    EXPECT_GT(psnr_done, psnr_start + 12.0) << "start " << psnr_start << " dB, after 150 steps " << psnr_done;
}

// Train learns the grid/hash field only: a node that still asks it for another model is told,
// at the param, which op learns that one now.
TEST(Train, AnotherModelNamesItsOp) {
    for (const auto& [model, op] : {std::pair{"siren", "use the op TrainSiren"}, {"splats", "use the op TrainSplats"}}) {
        OpRun run("Train");
        run.param("model", std::string(model));
        ASSERT_EQ(run.validate(), FF_ERROR) << model;
        EXPECT_EQ(run.error_param(), "model");
        EXPECT_NE(run.error().find(op), std::string::npos) << run.error();
    }
    OpRun grid("Train");
    grid.param("model", std::string("grid"));
    EXPECT_EQ(grid.validate(), FF_OK) << grid.error();
}

// Each training op takes a CPU budget by default: on the CPU driver a run its graph did not cut
// trains the op's cpu_steps (and cpu_batch), says so before it starts, and cpu_steps 0 undoes it.
TEST(TrainingOps, TakeTheirCpuBudgetByDefault) {
    for (const auto& [op, budget] : {std::pair{"Train", "its CPU budget applies: 2,000 steps x 2,048 pixels"},
                                     {"TrainSiren", "its CPU budget applies: 500 steps x 1,024 pixels"},
                                     {"TrainSplats", "its CPU budget applies: 100 full-image steps"}}) {
        OpRun run(op);
        run.param("device", std::string("cpu"));
        ASSERT_EQ(run.validate(), FF_OK) << op << ": " << run.error();
        std::string notes;
        for (const std::string& line : run.logs()) notes += line + "\n";
        EXPECT_NE(notes.find(budget), std::string::npos) << op << ":\n" << notes;
        OpRun off(op);
        off.param("device", std::string("cpu")).param("cpu_steps", 0);
        ASSERT_EQ(off.validate(), FF_OK) << op << ": " << off.error();
        for (const std::string& line : off.logs()) EXPECT_EQ(line.find("CPU budget"), std::string::npos) << line;
    }
    // And a run takes it: a SIREN asked for more steps than its budget trains the budget's.
    OpRun run("TrainSiren");
    run.image("image", small_photo()).param("device", std::string("cpu")).param("hidden_width", 16)
        .param("hidden_layers", 1).param("steps", 501).param("batch", 16).param("eval_interval", 0);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const json stats = json::parse(run.output_text("stats"));
    EXPECT_EQ(stats["steps"], 500);
    EXPECT_EQ(stats["asked_steps"], 501);
    EXPECT_NE(stats["cpu_budget"].get<std::string>().find("cpu_steps: 0"), std::string::npos) << stats.dump();
}

TEST(CompareReport, TableMatchesAnIndependentComputation) {
    const Trained& t = trained_siren();
    const cv::Mat truth = small_photo();
    const cv::Mat siren = infer(t.model);
    cv::Mat small, bilinear;
    cv::resize(truth, small, cv::Size(12, 9), 0, 0, cv::INTER_AREA);
    cv::resize(small, bilinear, truth.size(), 0, 0, cv::INTER_LINEAR);
    fs::path folder = fresh_folder("compare");
    OpRun run("CompareReport");
    run.image("ground_truth", truth).image("siren", siren).text("siren_stats", t.stats.dump())
        .image("bilinear", bilinear).param("path", (folder / "table.md").string())
        .param("metrics", (folder / "table.json").string()).param("csv", (folder / "table.csv").string())
        .param("codec_budget", "siren");
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    json j = json::parse(ff::test::read_text(folder / "table.json"));
    ASSERT_EQ(j["models"].size(), 4u);
    EXPECT_EQ(j["models"][0]["name"], "SIREN");
    EXPECT_NEAR(j["models"][0]["psnr"].get<double>(), psnr_8bit(truth, siren), 1e-6);
    EXPECT_EQ(j["models"][0]["parameters"], t.stats["parameter_count"]);
    EXPECT_EQ(j["models"][0]["train_seconds"], t.stats["train_seconds"]);
    EXPECT_EQ(j["models"][0]["device_seconds"], t.stats["gpu_seconds"]); // lavapipe has timestamps
    EXPECT_NEAR(j["models"][0]["steps_per_second"].get<double>(),
                t.stats["steps"].get<double>() / t.stats["gpu_seconds"].get<double>(), 1e-9);
    EXPECT_EQ(j["models"][0]["bytes"], t.model.size());
    EXPECT_EQ(j["models"][1]["name"], "bilinear");
    EXPECT_NEAR(j["models"][1]["psnr"].get<double>(), psnr_8bit(truth, bilinear), 1e-6);
    EXPECT_EQ(j["models"][1]["parameters"], 12 * 9 * 3);
    // JPEG and WebP at the SIREN file's bytes, scored like the rest.
    cv::Mat truth8;
    truth.convertTo(truth8, CV_8UC3, 255.0);
    for (size_t i : {2u, 3u}) {
        const json& row = j["models"][i];
        EXPECT_EQ(row["name"], std::string(i == 2 ? "JPEG" : "WebP") + " at siren's bytes");
        EXPECT_LE(row["bytes"].get<size_t>(), t.model.size());
        EXPECT_GT(row["psnr"].get<double>(), 15.0);
        EXPECT_TRUE(row["parameters"] == 0 && row["train_seconds"].is_null());
    }
    const std::string md = ff::test::read_text(folder / "table.md");
    EXPECT_NE(md.find("| Model | PSNR (dB) | SSIM | Parameters | Bytes | Device time (s) | Wall time (s) | Steps/s |"),
              std::string::npos) << md;
    const std::string csv = ff::test::read_text(folder / "table.csv");
    EXPECT_EQ(csv.rfind("model,psnr_db,ssim,parameters,bytes,device_seconds,wall_seconds,steps_per_second,configuration\nSIREN,", 0), 0u) << csv;
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
    EXPECT_NE(md.find("| SIREN | "), std::string::npos) << md;
    EXPECT_NE(md.find("| bilinear | "), std::string::npos) << md;

    // Stats without their image, or nothing at all, are errors.
    OpRun orphan("CompareReport");
    orphan.image("ground_truth", truth).text("grid_stats", "{}");
    EXPECT_EQ(orphan.execute(), FF_ERROR);
    EXPECT_NE(orphan.error().find("'grid_stats' is connected but 'grid' is not"), std::string::npos);
    OpRun nothing("CompareReport");
    nothing.image("ground_truth", truth);
    EXPECT_EQ(nothing.execute(), FF_ERROR);
    fs::remove_all(folder);
}
