// The command-line paths of the other models, with the built `fieldflow` on lavapipe:
// `fieldflow train` (SIREN, the seed's options) writes JSON weights and a reconstruction and
// reports loss, PSNR and timing; `fieldflow render` reproduces the reconstruction from the weights;
// graphs/compare_models.yaml produces its comparison table in one run.
#include "run_command.hpp"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = ff::test::CommandResult;

Result run(const std::string& command) { return ff::test::run_command(command); }

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

class ModelCommands : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        folder_ = fs::temp_directory_path() / ("ff_models_cli_" + std::to_string(::getpid()));
        fs::remove_all(folder_);
        fs::create_directories(folder_);
        cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR), small;
        ASSERT_FALSE(bgr.empty());
        cv::resize(bgr, small, cv::Size(64, 48), 0, 0, cv::INTER_AREA);
        input_ = folder_ / "input.png";
        ASSERT_TRUE(cv::imwrite(input_.string(), small));
    }
    static void TearDownTestSuite() { fs::remove_all(folder_); }

    static std::string exe() { return std::string(FF_FIELDFLOW_EXE) + " "; }
    static inline fs::path folder_, input_;
};

TEST_F(ModelCommands, TrainWritesWeightsAndImageAndRenderReproducesIt) {
    const fs::path weights = folder_ / "siren.json", image = folder_ / "out.png";
    Result r = run(exe() + "train --device cpu --input " + quoted(input_) + " --weights " + quoted(weights) +
                   " --output-image " + quoted(image) +
                   " --steps 200 --log-interval 50 --eval-interval 100 --lr 1e-3 --train-batch 1024"
                   " --hidden-width 32 --hidden-layers 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Loss every 50 steps, PSNR at the evaluations, timing at the end.
    for (const char* step : {"step 50: ", "step 150: ", "step 200: "}) {
        const size_t at = r.output.find(step);
        ASSERT_NE(at, std::string::npos) << step << "\n" << r.output;
        const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
        EXPECT_NE(line.find(", loss "), std::string::npos) << line;
    }
    EXPECT_NE(r.output.find(" dB"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("steps/s"), std::string::npos) << r.output;

    json w = json::parse(read_text(weights));
    EXPECT_EQ(w["model"], "siren");
    EXPECT_EQ(w["image_width"], 64);
    cv::Mat truth = cv::imread(input_.string()), out = cv::imread(image.string());
    ASSERT_EQ(out.size(), truth.size());
    EXPECT_GT(cv::PSNR(truth, out), 20.0);

    const fs::path again = folder_ / "again.png";
    r = run(exe() + "render --device cpu --weights " + quoted(weights) + " --output-image " + quoted(again));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_text(again), read_text(image)); // the same render, byte for byte

    const fs::path bigger = folder_ / "bigger.png";
    r = run(exe() + "render --device cpu --weights " + quoted(weights) + " --scale 2 --output-image " +
            quoted(bigger));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(cv::imread(bigger.string()).size(), cv::Size(128, 96));
}

TEST_F(ModelCommands, BadArgumentsAreClearErrors) {
    Result r = run(exe() + "train --steps 5");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("input"), std::string::npos) << r.output;
    r = run(exe() + "train --input " + quoted(input_) + " --model mesh");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--model 'mesh'"), std::string::npos) << r.output;
    r = run(exe() + "render --device cpu --weights " + quoted(folder_ / "missing.json"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
}

TEST_F(ModelCommands, CompareModelsGraphWritesItsTable) {
    const fs::path out = folder_ / "compare";
    Result r = run(exe() + "run --device cpu --no-cache " FF_COMPARE_GRAPH " --set input=" + quoted(input_) +
                   " --set output=" + quoted(out) +
                   " --set steps=100 --set batch=1024 --set hash_steps=100 --set siren_steps=100"
                   " --set siren_batch=1024 --set siren_width=32 --set siren_layers=2"
                   " --set siren_lr=1e-3 --set splats=200 --set splat_steps=50");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    json table = json::parse(read_text(out / "comparison.json"));
    // The five renders, then JPEG and WebP at the grid model's file bytes (codec_budget: grid).
    ASSERT_EQ(table["models"].size(), 7u);
    const char* names[] = {"grid+MLP", "hash grid+MLP", "SIREN", "splats", "bilinear"};
    cv::Mat truth = cv::imread(input_.string());
    const char* files[] = {"grid.png", "hash.png", "siren.png", "splats.png", "bilinear.png"};
    for (size_t i = 0; i < 5; ++i) {
        const json& m = table["models"][i];
        EXPECT_EQ(m["name"], names[i]);
        EXPECT_GT(m["parameters"].get<uint64_t>(), 0u) << names[i];
        // The table's PSNR is the saved render's.
        EXPECT_NEAR(m["psnr"].get<double>(), cv::PSNR(truth, cv::imread((out / files[i]).string())), 1e-6)
            << names[i];
    }
    EXPECT_TRUE(table["models"][4]["train_seconds"].is_null());
    const uint64_t grid_bytes = table["models"][0]["bytes"].get<uint64_t>();
    const char* codecs[] = {"JPEG at grid's bytes", "WebP at grid's bytes"};
    for (size_t i = 0; i < 2; ++i) {
        const json& m = table["models"][5 + i];
        EXPECT_EQ(m["name"], codecs[i]);
        EXPECT_GT(m["bytes"].get<uint64_t>(), 0u) << m.dump();
        EXPECT_LE(m["bytes"].get<uint64_t>(), grid_bytes) << m.dump();
        EXPECT_GT(m["psnr"].get<double>(), 0.0) << m.dump();
    }
    // The hash model's row names its encoding.
    EXPECT_NE(table["models"][1]["configuration"].get<std::string>().find("hash grid 16x2"), std::string::npos)
        << table["models"][1].dump();
    const std::string md = read_text(out / "comparison.md");
    EXPECT_NE(md.find("| Model | PSNR (dB) | SSIM | Parameters | Bytes | Device time (s) | Wall time (s) |"),
              std::string::npos)
        << md;
    EXPECT_TRUE(fs::exists(out / "strip.png"));
    EXPECT_TRUE(fs::exists(out / "siren.json"));
}

TEST_F(ModelCommands, LakeGraphLearnsWithTheHashEncodingByDefault) {
    // The lake graph's default encoding (no --set): the hash grid model trains, is saved with its
    // encoding's keys, is described as such, and renders the image Infer saves.
    const fs::path out = folder_ / "lake_hash";
    Result r = run(exe() + "run --device cpu --no-cache " FF_LAKE_GRAPH " --set input=" + quoted(input_) +
                   " --set output=" + quoted(out) + " --set steps=200 --set batch=2048");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("hash grid 16x2"), std::string::npos) << r.output;
    const std::string model = read_text(out / "model.ffm");
    EXPECT_NE(model.find("\nencoding hash_grid\nhash_levels 16\n"), std::string::npos);
    json metrics = json::parse(read_text(out / "metrics.json"));
    // The table sized to the image: the smallest, 2^10 rows, for a dense grid of 16x12. The baseline
    // holds as many values as the model has parameters but at most the image's own: this 64x48
    // image has 9,216 values, fewer than the model's 31,863 parameters, so the baseline is the
    // image itself (identical: PSNR null), and the model is scored on its own.
    EXPECT_NE(r.output.find("2^10 rows per level"), std::string::npos) << r.output;
    EXPECT_EQ(metrics["parameter_count"], 31863);
    EXPECT_EQ(metrics["bilinear_values"], 64 * 48 * 3);
    EXPECT_TRUE(metrics["bilinear_identical"].get<bool>()) << metrics.dump();
    EXPECT_TRUE(metrics["psnr_bilinear"].is_null());
    EXPECT_GT(metrics["psnr_learned"].get<double>(), 30.0) << metrics.dump();
    EXPECT_FALSE(fs::exists(out / "snapshots" / "feature_at_200.png")) << "a hash table has no feature image";
    EXPECT_TRUE(fs::exists(out / "snapshots" / "prediction_at_200.png"));

    // An encoding Train does not offer is named, with the graph's line and column.
    r = run(exe() + "run --device cpu --no-cache " FF_LAKE_GRAPH " --set input=" + quoted(input_) +
            " --set output=" + quoted(folder_ / "lake_bad") + " --set steps=10 --set encoding=coords");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("param 'encoding' must be one of dense_grid, hash_grid, frequency, dense, hash; got 'coords'"),
              std::string::npos)
        << r.output;
}

TEST_F(ModelCommands, GigapixelGraphSplitsTheImageAndMatchesTheBaselineToTheModel) {
    // graphs/gigapixel.yaml on a small photo with a small table, buffers capped at 1 MB: the
    // 800x600 image (1.9 MB as RGBA8) trains from two buffers, the hash grid's training state
    // (2^12 rows a level: about 1.9 MB) by address, and the baseline holds as many values as the
    // model has parameters.
    cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR), photo;
    cv::resize(bgr, photo, cv::Size(800, 600), 0, 0, cv::INTER_CUBIC);
    const fs::path input = folder_ / "giga_input.png", out = folder_ / "giga";
    ASSERT_TRUE(cv::imwrite(input.string(), photo));
    Result r = run("FIELDFLOW_MAX_BUFFER_BYTES=1048576 " + exe() + "run --device cpu --no-cache " FF_GIGAPIXEL_GRAPH
                   " --set input=" + quoted(input) + " --set output=" + quoted(out) +
                   " --set log2_table_size=12 --set cpu_steps=200");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the image in 2 buffers, the encoding's training state by address"), std::string::npos)
        << r.output;
    json metrics = json::parse(read_text(out / "metrics.json"));
    const uint64_t parameters = metrics["parameter_count"].get<uint64_t>();
    const size_t grid = r.output.find("[baseline] grid ");
    ASSERT_NE(grid, std::string::npos) << r.output;
    unsigned width = 0, height = 0;
    ASSERT_EQ(std::sscanf(r.output.c_str() + grid, "[baseline] grid %ux%u", &width, &height), 2) << r.output;
    EXPECT_LE(uint64_t(width) * height * 3, parameters);
    EXPECT_GT(uint64_t(width + 1) * (height + 1) * 3, parameters);
    EXPECT_GT(metrics["psnr_learned"].get<double>(), 20.0) << metrics.dump();
    EXPECT_TRUE(fs::exists(out / "prediction.png"));
    EXPECT_TRUE(fs::exists(out / "report.html"));
}

TEST_F(ModelCommands, EachModelIsItsOwnOpWithItsOwnParams) {
    // `fieldflow nodes Train` groups the grid model's params by the encoding they apply to (the
    // engine's names, the older ones beside them); TrainSiren and TrainSplats list only their own.
    Result all = run(exe() + "nodes Train");
    ASSERT_EQ(all.exit_code, 0) << all.output;
    for (const char* group : {"\nparams when encoding=hash_grid|hash:\n  hash_levels ",
                              "\nparams when encoding=dense_grid|dense:\n  grid "})
        EXPECT_NE(all.output.find(group), std::string::npos) << group << "\n" << all.output;
    for (const char* name : {"omega", "lr_siren", "splats"})
        EXPECT_EQ(all.output.find("\n  " + std::string(name) + " "), std::string::npos) << name;

    Result siren = run(exe() + "nodes TrainSiren");
    ASSERT_EQ(siren.exit_code, 0) << siren.output;
    for (const char* name : {"omega", "lr", "hidden_width", "steps", "batch", "cpu_steps", "snapshots"})
        EXPECT_NE(siren.output.find("\n  " + std::string(name) + " "), std::string::npos) << name;
    for (const char* name : {"lr_grid", "lr_mlp", "encoding", "grid", "hash_levels", "splats", "grid_adam"})
        EXPECT_EQ(siren.output.find("\n  " + std::string(name) + " "), std::string::npos) << name << "\n" << siren.output;
    Result splats = run(exe() + "nodes TrainSplats");
    ASSERT_EQ(splats.exit_code, 0) << splats.output;
    for (const char* name : {"splats", "steps", "cpu_steps", "seed"})
        EXPECT_NE(splats.output.find("\n  " + std::string(name) + " "), std::string::npos) << name;
    for (const char* name : {"batch", "cpu_batch", "hidden_width", "omega"})
        EXPECT_EQ(splats.output.find("\n  " + std::string(name) + " "), std::string::npos) << name;

    Result hash = run(exe() + "nodes Train encoding=hash_grid --json");
    ASSERT_EQ(hash.exit_code, 0) << hash.output;
    const json described = json::parse(hash.output);
    std::vector<std::string> names;
    for (const json& p : described["params"]) names.push_back(p["name"]);
    for (const char* name : {"hash_levels", "lr_grid", "grid_adam", "hidden_activation"})
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    for (const char* name : {"grid", "grid_channels"})
        EXPECT_EQ(std::find(names.begin(), names.end(), name), names.end()) << name;

    // A graph that sets a param another encoding takes is valid, and told so where it says it.
    const fs::path graph = folder_ / "hash_param_on_dense.yaml";
    std::ofstream(graph) << "fieldflow: 1\nnodes:\n  image: {op: ReadImage, params: {path: " << quoted(input_)
                         << "}}\n  train:\n    op: Train\n    inputs: {image: image}\n    params: {hash_levels: 8}\n";
    Result check = run(exe() + "check " + quoted(graph));
    EXPECT_EQ(check.exit_code, 0) << check.output;
    EXPECT_NE(check.output.find(graph.string() + ":7:27: warning: node 'train': param 'hash_levels' has no effect "
                                "here: it applies when encoding=hash_grid|hash, and encoding is 'dense_grid'"),
              std::string::npos)
        << check.output;
}

TEST_F(ModelCommands, TrainAskedForAnotherModelNamesItsOpAtTheParam) {
    // A graph written when Train multiplexed three models: the error is at `model`'s value and
    // names the op, beside the params Train does not take.
    const fs::path graph = folder_ / "old_siren.yaml";
    std::ofstream(graph) << "fieldflow: 1\nnodes:\n  image: {op: ReadImage, params: {path: " << quoted(input_)
                         << "}}\n  siren:\n    op: Train\n    inputs: {image: image}\n"
                            "    params: {model: siren, omega: 30}\n"
                            "  splat: {op: Train, inputs: {image: image}, params: {model: splats}}\n";
    Result check = run(exe() + "check " + quoted(graph));
    EXPECT_EQ(check.exit_code, 2) << check.output;
    EXPECT_NE(check.output.find(graph.string() + ":7:21: error: node 'siren': param 'model': Train no longer "
                                "learns SIREN; use the op TrainSiren"),
              std::string::npos)
        << check.output;
    EXPECT_NE(check.output.find(graph.string() + ":7:28: error: node 'siren': unknown param 'omega'"),
              std::string::npos)
        << check.output;
    EXPECT_NE(check.output.find(graph.string() + ":8:62: error: node 'splat': param 'model': Train no longer "
                                "learns splats; use the op TrainSplats"),
              std::string::npos)
        << check.output;
}

TEST_F(ModelCommands, TrainCommandTakesTheOpsDefaults) {
    // `fieldflow train` declares no training defaults: what it runs, left to itself, is the op's
    // declared defaults (`fieldflow nodes OP --json`), its CPU budget included.
    for (const char* model : {"siren", "grid"}) {
        const std::string op = std::string(model) == "siren" ? "TrainSiren" : "Train";
        Result described = run(exe() + "nodes " + op + " --json");
        ASSERT_EQ(described.exit_code, 0) << described.output;
        std::map<std::string, std::string> defaults;
        const json declared = json::parse(described.output);
        for (const json& p : declared["params"])
            defaults[p["name"].get<std::string>()] = p.value("default", std::string());
        auto number = [&](const char* name) {
            const auto it = defaults.find(name);
            EXPECT_NE(it, defaults.end()) << op << " declares no " << name << "\n" << described.output;
            return it == defaults.end() ? 0ull : std::stoull(it->second);
        };
        const fs::path dry_weights = folder_ / "dry.json";
        Result dry = run(exe() + "train --device cpu --dry-run --model " + model + " --input " + quoted(input_) +
                         " --weights " + quoted(dry_weights));
        ASSERT_EQ(dry.exit_code, 0) << dry.output;
        std::string said = dry.output; // its counts as plain numbers ("40,000" -> "40000")
        std::erase(said, ',');
        const std::string work = "trains " + std::to_string(number("steps")) + " steps x " +
                                 std::to_string(number("batch")) + " pixels";
        const std::string budget = "its CPU budget applies: " + std::to_string(number("cpu_steps")) +
                                   " steps x " + std::to_string(number("cpu_batch")) + " pixels";
        EXPECT_NE(said.find(work), std::string::npos) << work << "\n" << dry.output;
        EXPECT_NE(said.find(budget), std::string::npos) << budget << "\n" << dry.output;
        EXPECT_FALSE(fs::exists(dry_weights)) << "a dry run wrote its weights";
        if (op != "TrainSiren") continue;

        // A short run: the model and its training are the op's defaults but for the steps given.
        const fs::path weights = folder_ / "defaults.json";
        Result r = run(exe() + "train --device cpu --quiet --steps 3 --input " + quoted(input_) + " --weights " +
                       quoted(weights) + " --output-image " + quoted(folder_ / "defaults.png"));
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const json w = json::parse(read_text(weights));
        EXPECT_EQ(w["hidden_width"], number("hidden_width"));
        EXPECT_EQ(w["hidden_layers"], number("hidden_layers"));
        EXPECT_EQ(w["first_omega"], std::stod(defaults["omega"]));
        EXPECT_FLOAT_EQ(w["training"]["lr_mlp"].get<float>(), std::stof(defaults["lr"]));
        EXPECT_EQ(w["training"]["seed"], number("seed"));
        EXPECT_EQ(w["training"]["batch"], std::min(number("batch"), number("cpu_batch")));
        EXPECT_EQ(w["training"]["steps"], 3);
    }
    // An option of the other model is refused by name.
    Result omega = run(exe() + "train --model grid --omega 20 --dry-run --input " + quoted(input_));
    EXPECT_EQ(omega.exit_code, 2) << omega.output;
    EXPECT_NE(omega.output.find("--omega applies to --model siren only"), std::string::npos) << omega.output;
}

TEST_F(ModelCommands, NoCacheKeepsNoResultsButStillCachesCompiledKernels) {
    // --no-cache: no node result or training state is kept, but the kernels compiled for the run
    // are (a kernel's key is its exact source), so the next run does not compile them again. The
    // dense grid: its kernels compile fastest, and caching does not depend on the encoding.
    const fs::path cache = folder_ / "kernel_cache", out = folder_ / "lake_no_cache";
    const std::string command = "FIELDFLOW_CACHE_DIR=" + quoted(cache) + " " + exe() +
                                "run --device cpu --no-cache " FF_LAKE_GRAPH " --set input=" + quoted(input_) +
                                " --set output=" + quoted(out) + " --set steps=20 --set batch=256 --set encoding=dense_grid";
    Result r = run(command);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    size_t kernels = 0;
    for (const auto& entry : fs::directory_iterator(cache / "spirv"))
        kernels += entry.path().extension() == ".spv";
    EXPECT_GT(kernels, 0u) << "no compiled kernel in " << (cache / "spirv");
    EXPECT_FALSE(fs::exists(cache / "v1")) << "--no-cache wrote node results";
    EXPECT_FALSE(fs::exists(cache / "state")) << "--no-cache wrote training state";

    // The second run finds every kernel: nothing new is written.
    const auto before = fs::last_write_time(cache / "spirv");
    r = run(command);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    size_t again = 0;
    for (const auto& entry : fs::directory_iterator(cache / "spirv")) again += entry.path().extension() == ".spv";
    EXPECT_EQ(again, kernels);
    EXPECT_EQ(fs::last_write_time(cache / "spirv"), before) << "the second run compiled kernels again";
}

TEST_F(ModelCommands, GpuImageNodesMatchTheirCpuPaths) {
    // Grayscale and Downsample with device: gpu against the same nodes' CPU code, through a graph.
    const fs::path graph = folder_ / "image_ops.yaml";
    std::ofstream(graph) << R"(fieldflow: 1
vars: {input: ~, output: ~}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  small_gpu: {op: Downsample, inputs: {image: image}, params: {factor: 3, device: gpu}}
  small_cpu: {op: Downsample, inputs: {image: image}, params: {factor: 3}}
  gray_gpu: {op: Grayscale, inputs: {image: image}, params: {device: gpu}}
  gray_cpu: {op: Grayscale, inputs: {image: image}}
  small_metrics: {op: Metrics, inputs: {image: small_gpu, reference: small_cpu}, params: {quantize: false}}
  gray_metrics: {op: Metrics, inputs: {image: gray_gpu, reference: gray_cpu}, params: {quantize: false}}
  save_small: {op: WriteJson, inputs: {json: small_metrics}, params: {path: "${output}/small.json"}}
  save_gray: {op: WriteJson, inputs: {json: gray_metrics}, params: {path: "${output}/gray.json"}}
)";
    const fs::path out = folder_ / "image_ops";
    Result r = run(exe() + "run --device cpu --no-cache " + quoted(graph) + " --set input=" + quoted(input_) +
                   " --set output=" + quoted(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* name : {"small.json", "gray.json"}) {
        json m = json::parse(read_text(out / name));
        EXPECT_LT(m["mse"].get<double>(), 1e-12) << name; // float rounding only
        EXPECT_GT(m["width"].get<int>(), 0) << name;
    }
    EXPECT_EQ(json::parse(read_text(out / "small.json"))["width"], 64 / 3);
}

} // namespace
