// docs/cluster.md: the Slurm scripts run as written (with the variables Slurm would set), three
// shards and the merge giving the unsharded result, and the one-node script on every device; the
// Kubernetes manifests are valid Jobs.
#include "batch_test_support.hpp"

#include <yaml-cpp/yaml.h>

#include <vector>

namespace fieldflow::batch_test {
namespace {

// The fenced code blocks of a Markdown file with the given language.
std::vector<std::string> code_blocks(const std::string& markdown, const std::string& language) {
    std::vector<std::string> blocks;
    std::istringstream in(markdown);
    std::string line, block;
    bool inside = false;
    while (std::getline(in, line)) {
        if (!inside && line == "```" + language) {
            inside = true;
            block.clear();
        } else if (inside && line == "```") {
            inside = false;
            blocks.push_back(block);
        } else if (inside) {
            block += line + "\n";
        }
    }
    return blocks;
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

int run_shell(const std::string& command) {
    const int status = std::system(("env -u FIELDFLOW_PLUGIN_PATH " + command + " > /dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ClusterDoc, SlurmScriptsShardAndMergeToTheUnshardedResult) {
    const std::string doc = read_text(FF_DOCS_DIR "/cluster.md");
    std::string shards_script, merge_script;
    for (const std::string& b : code_blocks(doc, "bash")) {
        if (contains(b, "#SBATCH --array")) shards_script = b;
        if (contains(b, "--merge")) merge_script = b;
    }
    ASSERT_FALSE(shards_script.empty()) << "no sbatch array script in docs/cluster.md";
    ASSERT_FALSE(merge_script.empty()) << "no merge script in docs/cluster.md";
    EXPECT_TRUE(contains(shards_script, "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"));

    TempDir dir;
    const fs::path photos = dir / "photos", results = dir / "results";
    fs::create_directories(photos);
    for (int i = 0; i < 5; ++i) write_crop(photos / ("c" + std::to_string(i) + ".png"), 40 + i);
    write_text(photos / "bad.png", "text");
    write_text(dir / "shards.sbatch", shards_script);
    write_text(dir / "merge.sbatch", merge_script);
    const std::string env = std::string("FIELDFLOW=") + FF_FIELDFLOW_BIN + " GRAPH=" + FF_BASELINE_GRAPH +
                            " PHOTOS=" + q(photos) + " RESULTS=" + q(results) + " FIELDFLOW_ARGS=--no-cache ";
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(run_shell("SLURM_ARRAY_TASK_ID=" + std::to_string(i) + " SLURM_ARRAY_TASK_COUNT=3 " + env +
                            "bash " + q(dir / "shards.sbatch")),
                  0) << "shard " << i; // bad.png failing is not a task failure
    EXPECT_EQ(run_shell(env + "bash " + q(dir / "merge.sbatch")), 1); // bad.png failed
    ASSERT_EQ(run_shell(std::string(FF_FIELDFLOW_BIN) + " batch " + FF_BASELINE_GRAPH + " --input " +
                        q(photos) + " --output " + q(dir / "whole") + " --no-cache"),
              1);

    auto results_of = [](const fs::path& summary) {
        std::map<std::string, std::string> out;
        const nlohmann::json j = read_json(summary); // the loop must not outlive it
        for (const auto& image : j["images"])
            out[image["stem"]] = image["status"].get<std::string>() + " " + image["metrics"]["psnr"].dump();
        return out;
    };
    const auto merged = results_of(results / "merged" / "summary.json");
    EXPECT_EQ(merged.size(), 6u);
    EXPECT_EQ(merged, results_of(dir / "whole" / "summary.json"));
}

#ifdef FF_LAKE_GRAPH // --devices all asks the neural plugin's Devices op
// The one-node script takes every device the task sees: here the CPU driver alone.
TEST(ClusterDoc, OneNodeScriptRunsOnEveryDeviceTheTaskSees) {
    const std::string doc = read_text(FF_DOCS_DIR "/cluster.md");
    std::string script;
    for (const std::string& b : code_blocks(doc, "bash"))
        if (contains(b, "#SBATCH --gres=gpu:") && contains(b, "--devices all")) script = b;
    ASSERT_FALSE(script.empty()) << "no one-node script with --devices all in docs/cluster.md";
    TempDir dir;
    const fs::path photos = dir / "photos", results = dir / "results";
    fs::create_directories(photos);
    for (int i = 0; i < 2; ++i) write_crop(photos / ("c" + std::to_string(i) + ".png"), 50 + i);
    write_text(dir / "node.sbatch", script);
    EXPECT_EQ(run_shell(std::string("FIELDFLOW=") + FF_FIELDFLOW_BIN + " GRAPH=" + FF_BASELINE_GRAPH +
                        " PHOTOS=" + q(photos) + " RESULTS=" + q(results) + " FIELDFLOW_ARGS=--no-cache " +
                        "bash " + q(dir / "node.sbatch")),
              0);
    const nlohmann::json summary = read_json(results / "summary.json");
    ASSERT_EQ(summary["images"].size(), 2u) << summary.dump();
    for (const auto& image : summary["images"]) {
        EXPECT_EQ(image["status"], "done");
        EXPECT_NE(image["ran_on"], "") << "--devices all named no device";
    }
}
#endif

TEST(ClusterDoc, KubernetesManifestsAreIndexedShardJobAndMergeJob) {
    const std::string doc = read_text(FF_DOCS_DIR "/cluster.md");
    const auto blocks = code_blocks(doc, "yaml");
    ASSERT_EQ(blocks.size(), 2u);
    const YAML::Node shards = YAML::Load(blocks[0]);
    EXPECT_EQ(shards["kind"].as<std::string>(), "Job");
    EXPECT_EQ(shards["spec"]["completionMode"].as<std::string>(), "Indexed");
    const YAML::Node container = shards["spec"]["template"]["spec"]["containers"][0];
    const std::string command = container["args"][0].as<std::string>();
    EXPECT_TRUE(contains(command, "--shard $JOB_COMPLETION_INDEX/$SHARDS")) << command;
    EXPECT_TRUE(contains(command, "--resume"));
    EXPECT_EQ(container["env"][0]["value"].as<std::string>(),
              std::to_string(shards["spec"]["completions"].as<int>()));
    const YAML::Node merge = YAML::Load(blocks[1]);
    EXPECT_EQ(merge["kind"].as<std::string>(), "Job");
    EXPECT_TRUE(contains(merge["spec"]["template"]["spec"]["containers"][0]["args"][0].as<std::string>(),
                         "fieldflow batch --merge /data/results/shard-*"));
}

} // namespace
} // namespace fieldflow::batch_test
