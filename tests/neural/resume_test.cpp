// Train's checkpoints through the plugin ABI: an interrupted run resumes from its checkpoint in the
// state folder and its outputs (model, training log, snapshots, statistics) cover the whole run; a
// damaged or foreign checkpoint is a warning and a fresh start; no state folder, no checkpoint.
#include "neural_host.hpp"
#include "test_files.hpp"

#include <fieldflow/engine/model_file.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using ff::test::OpRun;
using nlohmann::json;

namespace {

// leuvenA.jpg reduced to `width` x 3/4 width.
cv::Mat photo(int width) {
    cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR);
    if (bgr.empty()) throw std::runtime_error("cannot read " FF_TEST_IMAGE);
    cv::Mat small, rgb;
    cv::resize(bgr, small, cv::Size(width, width * 3 / 4), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
    rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
    return rgb;
}

fs::path fresh_folder(const std::string& name) { return ff::test::fresh_folder("ff_neural_resume", name); }

bool logged(const OpRun& run, const std::string& text) {
    return std::any_of(run.logs().begin(), run.logs().end(),
                       [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

std::string all_logs(const OpRun& run) {
    std::string out;
    for (const std::string& line : run.logs()) out += line + "\n";
    return out;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

uint32_t step_of(const std::string& csv_line) { return uint32_t(std::stoul(csv_line.substr(0, csv_line.find(',')))); }

ff::engine::Model decoded(const std::vector<std::byte>& bytes) {
    return ff::engine::decode_model_file(bytes, "model").model;
}

// A SIREN run of 1,500 steps on a 96x72 photo, checkpointing every 200 steps. A SIREN has no grid,
// so no float atomics: two runs of it are identical bit for bit, and so must a resumed one be (two
// runs of a grid model drift apart over 1,500 steps from the atomics' rounding alone; the engine
// tests compare those over a short run).
OpRun& configure(OpRun& run, const fs::path& folder, const fs::path& state) {
    return run.image("image", photo(96))
        .param("hidden_width", 16)
        .param("hidden_layers", 2)
        .param("steps", 1500)
        .param("cpu_steps", 0) // the 1,500 steps on lavapipe too
        .param("batch", 512)
        .param("seed", 5)
        .param("eval_interval", 500)
        .param("checkpoint_interval", 200)
        .param("snapshots", (folder / "snapshots").string())
        .state_dir(state.string());
}

TEST(Resume, InterruptedTrainingResumesAndItsOutputsCoverTheWholeRun) {
    const fs::path folder = fresh_folder("interrupted"), state = folder / "state";

    OpRun first("TrainSiren");
    configure(first, folder, state).on_progress([](const ff::test::ProgressEvent& e) { return e.done >= 600; });
    ASSERT_EQ(first.execute(), FF_CANCELLED) << first.error();
    const uint32_t stopped = uint32_t(first.progress().back().done);
    ASSERT_GE(stopped, 600u);
    ASSERT_LT(stopped, 1500u);
    ASSERT_TRUE(fs::exists(state / "checkpoint.ffckpt")) << all_logs(first);
    const std::vector<std::string> first_log = lines(ff::test::read_text(folder / "snapshots" / "training_log.csv"));

    OpRun second("TrainSiren");
    configure(second, folder, state);
    ASSERT_EQ(second.execute(), FF_OK) << second.error();
    // The interrupt itself was checkpointed: nothing trained before it is lost.
    EXPECT_TRUE(logged(second, "resuming from checkpoint at step " + std::to_string(stopped) + " of 1500"))
        << all_logs(second);
    ASSERT_FALSE(second.progress().empty());
    EXPECT_EQ(second.progress().front().done, stopped);
    EXPECT_EQ(second.progress().front().detail, "resumed at step " + std::to_string(stopped));
    const json stats = json::parse(second.output_text("stats"));
    EXPECT_EQ(stats["resumed_from_step"], stopped);
    EXPECT_EQ(stats["steps"], 1500);

    // The training log: the interrupted run's rows up to the checkpoint, then the rest, in order.
    const std::vector<std::string> log = lines(ff::test::read_text(folder / "snapshots" / "training_log.csv"));
    ASSERT_GT(log.size(), 3u);
    EXPECT_EQ(step_of(log[1]), 1u);
    EXPECT_EQ(step_of(log.back()), 1500u);
    for (size_t i = 2; i < log.size(); ++i) EXPECT_LT(step_of(log[i - 1]), step_of(log[i])) << log[i];
    for (size_t i = 1; i < first_log.size() && step_of(first_log[i]) <= stopped; ++i)
        EXPECT_EQ(log.at(i), first_log[i]) << "row " << i << " of the interrupted run's log changed";
    // Snapshots from both runs: the first run's are kept, the rest are written by the second.
    for (int step : {1, 10, 100, 1000, 1500})
        EXPECT_TRUE(fs::exists(folder / "snapshots" / ("prediction_at_" + std::to_string(step) + ".png")))
            << "step " << step;

    // The resumed model is the uninterrupted run's, bit for bit.
    const fs::path straight_folder = fresh_folder("straight");
    OpRun straight("TrainSiren");
    configure(straight, straight_folder, straight_folder / "state");
    ASSERT_EQ(straight.execute(), FF_OK) << straight.error();
    EXPECT_EQ(json::parse(straight.output_text("stats"))["resumed_from_step"], 0);
    EXPECT_EQ(decoded(second.output_blob("model")).mlp, decoded(straight.output_blob("model")).mlp);
    const std::vector<std::string> straight_log =
        lines(ff::test::read_text(straight_folder / "snapshots" / "training_log.csv"));
    auto losses = [](const std::vector<std::string>& csv) { // step -> loss, the columns that must agree
        std::map<uint32_t, std::string> out;
        for (size_t i = 1; i < csv.size(); ++i) {
            const size_t a = csv[i].find(','), b = csv[i].find(',', a + 1);
            out[step_of(csv[i])] = csv[i].substr(a + 1, b - a - 1);
        }
        return out;
    };
    const auto resumed_losses = losses(log), straight_losses = losses(straight_log);
    for (uint32_t step : {1u, 10u, 100u, 1000u, 1500u})
        EXPECT_EQ(resumed_losses.at(step), straight_losses.at(step)) << "loss at step " << step;
    fs::remove_all(folder);
    fs::remove_all(straight_folder);
}

// A hash-grid Train that also sets a dense grid's param (a warning says it has no effect) resumes
// from its checkpoint: the param must not reach the model configuration, which the hash grid's
// checkpoint does not store and the resumed run is compared with.
TEST(Resume, AHashGridWithADenseGridParamResumes) {
    const fs::path folder = fresh_folder("hash_with_dense_param"), state = folder / "state";
    auto hash_run = [&](OpRun& run) -> OpRun& {
        return run.image("image", photo(48))
            .param("encoding", "hash_grid")
            .param("hash_log2_table_size", 10)
            .param("subcell", ff::test::Param(false))
            .param("fourier_octaves", 3)
            .param("hidden_width", 16)
            .param("steps", 400)
            .param("cpu_steps", 0)
            .param("batch", 256)
            .param("eval_interval", 0)
            .param("checkpoint_interval", 50)
            .state_dir(state.string());
    };
    OpRun first("Train");
    hash_run(first).on_progress([](const ff::test::ProgressEvent& e) { return e.done >= 100; });
    ASSERT_EQ(first.execute(), FF_CANCELLED) << first.error();
    const uint32_t stopped = uint32_t(first.progress().back().done);
    ASSERT_TRUE(fs::exists(state / "checkpoint.ffckpt")) << all_logs(first);
    OpRun second("Train");
    hash_run(second);
    ASSERT_EQ(second.execute(), FF_OK) << second.error();
    EXPECT_TRUE(logged(second, "resuming from checkpoint at step " + std::to_string(stopped) + " of 400"))
        << all_logs(second);
    fs::remove_all(folder);
}

TEST(Resume, DamagedOrForeignCheckpointIsAWarningAndAFreshStart) {
    const fs::path folder = fresh_folder("damaged"), state = folder / "state";
    fs::create_directories(state);
    std::ofstream(state / "checkpoint.ffckpt", std::ios::binary) << "FFCHKPT\n and then garbage";
    OpRun damaged("Train");
    damaged.image("image", photo(48)).param("steps", 30).param("batch", 256).state_dir(state.string());
    ASSERT_EQ(damaged.execute(), FF_OK) << damaged.error();
    EXPECT_TRUE(logged(damaged, "ignoring the checkpoint " + (state / "checkpoint.ffckpt").string() +
                                    " (" + (state / "checkpoint.ffckpt").string() + ": truncated"))
        << all_logs(damaged);
    EXPECT_EQ(json::parse(damaged.output_text("stats"))["resumed_from_step"], 0);

    // A valid checkpoint of another image size (state folders are per work, so this only happens
    // when files are moved by hand): refused by name, then a fresh start.
    OpRun big("Train");
    big.image("image", photo(64))
        .param("steps", 400)
        .param("batch", 256)
        .param("checkpoint_interval", 20)
        .state_dir(state.string())
        .on_progress([](const ff::test::ProgressEvent& e) { return e.done >= 20; });
    ASSERT_EQ(big.execute(), FF_CANCELLED);
    OpRun small("Train");
    small.image("image", photo(48)).param("steps", 400).param("batch", 256).param("checkpoint_interval", 20)
        .state_dir(state.string());
    ASSERT_EQ(small.execute(), FF_OK) << small.error();
    EXPECT_TRUE(logged(small, "(it was trained on a 64x48 image); starting from step 0")) << all_logs(small);
    fs::remove_all(folder);
}

TEST(Resume, NoCheckpointWithoutAStateFolderOrWithTheIntervalOff) {
    const fs::path folder = fresh_folder("off"), state = folder / "state";
    OpRun off("Train");
    off.image("image", photo(48))
        .param("steps", 100000)
        .param("batch", 256)
        .param("checkpoint_interval", 0)
        .state_dir(state.string())
        .on_progress([](const ff::test::ProgressEvent& e) { return e.done >= 50; });
    ASSERT_EQ(off.execute(), FF_CANCELLED);
    EXPECT_FALSE(fs::exists(state / "checkpoint.ffckpt"));

    // Without a state folder (no disk cache) the run still trains and interrupts cleanly.
    OpRun none("Train");
    none.image("image", photo(48)).param("steps", 100000).param("batch", 256)
        .on_progress([](const ff::test::ProgressEvent& e) { return e.done >= 50; });
    ASSERT_EQ(none.execute(), FF_CANCELLED);
    fs::remove_all(folder);
}

#if FF_HAVE_SPLATS
TEST(Resume, InterruptedSplatFitResumes) {
    const fs::path folder = fresh_folder("splats"), state = folder / "state";
    auto configure_splats = [&](OpRun& run) -> OpRun& {
        return run.image("image", photo(48))
            .param("splats", 150)
            .param("steps", 300)
            .param("cpu_steps", 0) // the 300 steps on lavapipe too
            .param("checkpoint_interval", 40)
            .state_dir(state.string());
    };
    OpRun first("TrainSplats");
    configure_splats(first).on_progress([](const ff::test::ProgressEvent& e) { return e.done >= 80; });
    ASSERT_EQ(first.execute(), FF_CANCELLED) << first.error();
    const uint32_t stopped = uint32_t(first.progress().back().done);
    ASSERT_TRUE(fs::exists(state / "checkpoint.ffckpt"));

    OpRun second("TrainSplats");
    configure_splats(second);
    ASSERT_EQ(second.execute(), FF_OK) << second.error();
    EXPECT_TRUE(logged(second, "resuming from checkpoint at step " + std::to_string(stopped) + " of 300"))
        << all_logs(second);
    const json stats = json::parse(second.output_text("stats"));
    EXPECT_EQ(stats["resumed_from_step"], stopped);
    EXPECT_EQ(ff::engine::decode_model_file(second.output_blob("model"), "model").kind, ff::engine::ModelKind::splats);
    fs::remove_all(folder);
}
#endif

} // namespace
