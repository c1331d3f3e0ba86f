// ff_host_api::state_dir (ABI 1.1): a node's private folder for resuming its work. Stable for the
// same work across runs, different for other params or inputs, absent without a disk cache and
// during validation, kept after a failure and removed once the node succeeded and was cached.
#include "test_support.hpp"

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/scheduler.hpp>

#include <regex>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

std::string resumable_graph(const fs::path& flag, int tag = 0, double value = 0.5) {
    return "fieldflow: 1\nnodes:\n"
           "  c: {op: Constant, params: {value: " + std::to_string(value) + "}}\n"
           "  r: {op: Resumable, inputs: {image: c}, params: {fail_if_exists: '" + flag.string() +
           "', tag: " + std::to_string(tag) + "}}\n";
}

// One run in a fresh process's state (no memory cache carried over).
RunResult run(const Graph& graph, const DiskCache* disk) {
    MemoryCache memory;
    RunOptions options;
    options.memory = &memory;
    options.disk = disk;
    return run_graph(graph, options);
}

const NodeResult& resumable(const Graph& g, const RunResult& r) { return r.nodes.at(size_t(g.find("r"))); }

// "state folder DIR; earlier executions N" from a failed Resumable: (DIR, N).
std::pair<std::string, int> failure_state(const NodeResult& result) {
    std::smatch m;
    static const std::regex pattern("state folder (.*); earlier executions (-?[0-9]+)");
    EXPECT_TRUE(std::regex_match(result.message, m, pattern)) << result.message;
    if (m.size() != 3) return {"", -100};
    return {m[1].str(), std::stoi(m[2].str())};
}

// {"state_dir": "DIR", "earlier": N} from a successful Resumable: (DIR, N).
std::pair<std::string, int> output_state(const NodeResult& result) {
    const Value& v = *result.outputs.at("state");
    const std::string text(reinterpret_cast<const char*>(v.bytes.data()), v.bytes.size());
    std::smatch m;
    static const std::regex pattern(R"re(\{"state_dir": "(.*)", "earlier": (-?[0-9]+)\})re");
    EXPECT_TRUE(std::regex_match(text, m, pattern)) << text;
    if (m.size() != 3) return {"", -100};
    return {m[1].str(), std::stoi(m[2].str())};
}

TEST(StateDir, SameWorkSameFolderKeptAfterFailureRemovedAfterSuccess) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    DiskCache disk((dir.path() / "cache").string());
    const fs::path flag = dir.path() / "fail";
    test::write_text(flag, "x");
    Graph g = test::valid_graph(resumable_graph(flag), registry);

    RunResult first = run(g, &disk);
    ASSERT_EQ(resumable(g, first).status, NodeStatus::Failed);
    const auto [folder, earlier] = failure_state(resumable(g, first));
    EXPECT_EQ(folder, disk.state_path(resumable(g, first).key));
    EXPECT_EQ(earlier, 0);
    EXPECT_EQ(fs::path(folder).parent_path().parent_path(), dir.path() / "cache");
    EXPECT_TRUE(fs::is_directory(folder)) << "a failed node's state folder must stay";

    // The same work in a later run: the same folder, with what the first execution left.
    Graph again = test::valid_graph(resumable_graph(flag), registry);
    RunResult second = run(again, &disk);
    EXPECT_EQ(failure_state(resumable(again, second)), std::make_pair(folder, 1));

    // It succeeds now: it still sees its state, then the host caches the result and removes it.
    fs::remove(flag);
    RunResult third = run(again, &disk);
    const NodeResult& done = resumable(again, third);
    ASSERT_EQ(done.status, NodeStatus::Ran) << done.message;
    EXPECT_EQ(output_state(done), std::make_pair(folder, 2));
    EXPECT_FALSE(fs::exists(folder)) << "the state folder outlived the node's success";
    EXPECT_TRUE(fs::exists(disk.entry_path(done.key)));

    // A fourth run reads the result from the cache and never needs the folder.
    RunResult fourth = run(again, &disk);
    EXPECT_EQ(resumable(again, fourth).status, NodeStatus::CachedDisk);
    EXPECT_FALSE(fs::exists(folder));
}

TEST(StateDir, OtherParamsOrInputsGetAnotherFolder) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    DiskCache disk((dir.path() / "cache").string());
    const fs::path flag = dir.path() / "fail";
    test::write_text(flag, "x");
    auto folder_of = [&](int tag, double value) {
        Graph g = test::valid_graph(resumable_graph(flag, tag, value), registry);
        return failure_state(resumable(g, run(g, &disk))).first;
    };
    const std::string base = folder_of(0, 0.5);
    EXPECT_EQ(folder_of(0, 0.5), base);
    EXPECT_NE(folder_of(1, 0.5), base);  // a param differs
    EXPECT_NE(folder_of(0, 0.25), base); // the input differs
    EXPECT_NE(folder_of(1, 0.5), folder_of(0, 0.25));
}

TEST(StateDir, NoFolderWithoutADiskCacheOrDuringValidation) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    // Validation: the op's validate() fails if state_dir gives it a folder (valid_graph checks).
    Graph g = test::valid_graph(resumable_graph(dir.path() / "no-such-flag"), registry);
    RunResult r = run(g, nullptr);
    const NodeResult& done = resumable(g, r);
    ASSERT_EQ(done.status, NodeStatus::Ran) << done.message;
    EXPECT_EQ(output_state(done), std::make_pair(std::string(), 0));
    EXPECT_TRUE(fs::is_empty(dir.path())) << "a run without a disk cache wrote files";
}

TEST(StateDir, SuccessfulNodesLeaveNoStateBehind) {
    // Ops that never ask for a folder: a disk-cached run creates no state folders at all.
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    DiskCache disk((dir.path() / "cache").string());
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  c: {op: Constant}\n"
                                "  fit: {op: Fit, inputs: {image: c}, params: {steps: 3}}\n",
                                registry);
    RunResult r = run(g, &disk);
    EXPECT_FALSE(r.any_failed());
    EXPECT_FALSE(fs::exists(dir.path() / "cache" / "state"));
}

} // namespace
} // namespace fieldflow::host
