// Cache keys and the disk cache.
#include "test_support.hpp"

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/run_log.hpp>
#include <fieldflow/host/scheduler.hpp>

#include <cstdio>

namespace fieldflow::host {
namespace {

const NodeResult& result_of(const Graph& g, const RunResult& r, const char* name) {
    return r.nodes.at(size_t(g.find(name)));
}

std::string chain(double value, double scale) {
    return "fieldflow: 1\nnodes:\n"
           "  c: {op: Constant, params: {value: " + std::to_string(value) + "}}\n"
           "  d: {op: Constant, params: {value: 1}}\n"
           "  sum: {op: Add, inputs: {a: c, b: d}, params: {scale: " + std::to_string(scale) + "}}\n"
           "  stats: {op: Stats, inputs: {image: sum}}\n";
}

TEST(CacheKeys, DownstreamParamChangeLeavesUpstreamKeys) {
    OpRegistry registry = test::test_registry();
    Graph a = test::valid_graph(chain(0.5, 1), registry);
    Graph b = test::valid_graph(chain(0.5, 2), registry);
    RunResult ra = run_graph(a, RunOptions{});
    RunResult rb = run_graph(b, RunOptions{});
    EXPECT_EQ(result_of(a, ra, "c").key, result_of(b, rb, "c").key);
    EXPECT_EQ(result_of(a, ra, "d").key, result_of(b, rb, "d").key);
    EXPECT_NE(result_of(a, ra, "sum").key, result_of(b, rb, "sum").key);
    EXPECT_NE(result_of(a, ra, "stats").key, result_of(b, rb, "stats").key); // its input changed
}

TEST(CacheKeys, UpstreamChangePropagates) {
    OpRegistry registry = test::test_registry();
    Graph a = test::valid_graph(chain(0.5, 1), registry);
    Graph b = test::valid_graph(chain(0.25, 1), registry);
    RunResult ra = run_graph(a, RunOptions{});
    RunResult rb = run_graph(b, RunOptions{});
    EXPECT_NE(result_of(a, ra, "c").key, result_of(b, rb, "c").key);
    EXPECT_EQ(result_of(a, ra, "d").key, result_of(b, rb, "d").key);
    EXPECT_NE(result_of(a, ra, "sum").key, result_of(b, rb, "sum").key);
}

TEST(CacheKeys, SpellingAndDefaultsDoNotMatter) {
    OpRegistry registry = test::test_registry();
    Graph a = test::valid_graph("fieldflow: 1\nnodes:\n  c: {op: Constant}\n", registry);
    Graph b = test::valid_graph("fieldflow: 1\nnodes:\n  other_name:\n    op: Constant\n"
                                "    params: {value: 0.50, width: 4, mode: flat}\n",
                                registry);
    EXPECT_EQ(node_key(a.nodes[0], {}), node_key(b.nodes[0], {}));
    Graph c = test::valid_graph("fieldflow: 1\nnodes:\n  c: {op: Constant, params: {value: 0.5000001}}\n", registry);
    EXPECT_NE(node_key(a.nodes[0], {}), node_key(c.nodes[0], {}));
    // Input keys and port names are part of the key.
    Hash128 k1{1, 2}, k2{1, 3};
    EXPECT_NE(node_key(a.nodes[0], {{"a", k1}}), node_key(a.nodes[0], {{"a", k2}}));
    EXPECT_NE(node_key(a.nodes[0], {{"a", k1}}), node_key(a.nodes[0], {{"b", k1}}));
}

// The key is exactly what determines the result: a cadence param (FF_PARAM_NOT_IN_KEY) is left
// out, and a side-output path (FF_PARAM_SIDE_OUTPUT) counts only as set or unset, so changing
// where side files go (Train's snapshots under the output folder) reuses the cached result.
TEST(CacheKeys, CadenceParamsAreLeftOutAndSideOutputPathsCountOnlyAsSetOrUnset) {
    OpRegistry registry = test::test_registry();
    auto key = [&](const std::string& params) {
        Graph g = test::valid_graph("fieldflow: 1\nnodes:\n  c: {op: Constant, params: {" + params + "}}\n",
                                    registry);
        return node_key(g.nodes[0], {});
    };
    EXPECT_EQ(key(""), key("log_every: 100"));
    EXPECT_EQ(key("notes: out/a/notes"), key("notes: out/b/notes, log_every: 7"));
    EXPECT_NE(key(""), key("notes: out/a/notes")); // side files asked for or not: a different run
    EXPECT_NE(key(""), key("value: 0.25"));
}

// A param that does not apply to the node's values (applies_when) is left out of the key: it
// cannot change the result. Where it applies, it counts like any other.
TEST(CacheKeys, ParamsThatDoNotApplyAreLeftOut) {
    OpRegistry registry = test::test_registry();
    auto key = [&](const std::string& params) {
        Graph g = test::valid_graph("fieldflow: 1\nnodes:\n  c: {op: Constant, params: {" + params + "}}\n",
                                    registry);
        return node_key(g.nodes[0], {});
    };
    EXPECT_EQ(key("mode: flat"), key("mode: flat, ramp_start: 0.25"));
    EXPECT_NE(key("mode: ramp"), key("mode: ramp, ramp_start: 0.25"));
    EXPECT_NE(key("mode: flat"), key("mode: ramp"));
}

// A run with a fresh memory cache (as a new process would have) and the given disk cache, its
// log captured in `log_text`.
struct Runner {
    const Graph& graph;
    const DiskCache* disk;
    std::string log_text;

    RunResult run() {
        FILE* f = std::tmpfile();
        RunResult r;
        {
            ProgressBoard board(f, false, true);
            RunLog log(board, false);
            MemoryCache memory;
            RunOptions options;
            options.memory = &memory;
            options.disk = disk;
            options.log = &log;
            r = run_graph(graph, options);
        }
        std::fflush(f);
        std::rewind(f);
        log_text.clear();
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) log_text.append(buf, n);
        std::fclose(f);
        return r;
    }
};

const char* kFitGraph = "fieldflow: 1\nvars: {scale: 1}\nnodes:\n"
                        "  c: {op: Constant, params: {value: 0.5}}\n"
                        "  fit: {op: Fit, inputs: {image: c}, params: {steps: 7}}\n"
                        "  r: {op: Render, inputs: {model: fit}, params: {size: [2, 2]}}\n"
                        "  s: {op: Stats, inputs: {image: r}}\n";

TEST(DiskCache, SecondRunReadsFromDisk) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    DiskCache disk(dir.path().string());
    Graph g = test::valid_graph(kFitGraph, registry);
    Runner runner{g, &disk, {}};

    const int fits = test::plugin_runs("Fit");
    RunResult first = runner.run();
    EXPECT_EQ(result_of(g, first, "fit").status, NodeStatus::Ran);
    EXPECT_EQ(test::plugin_runs("Fit") - fits, 1);
    EXPECT_TRUE(std::filesystem::exists(disk.entry_path(result_of(g, first, "fit").key)));

    RunResult second = runner.run();
    EXPECT_EQ(result_of(g, second, "fit").status, NodeStatus::CachedDisk);
    EXPECT_EQ(test::plugin_runs("Fit") - fits, 1); // not executed again
    EXPECT_NE(runner.log_text.find("cached    fit"), std::string::npos) << runner.log_text;
    EXPECT_NE(runner.log_text.find("(disk)"), std::string::npos);
    EXPECT_EQ(result_of(g, second, "fit").outputs.at("model")->bytes,
              result_of(g, first, "fit").outputs.at("model")->bytes);
    EXPECT_EQ(result_of(g, second, "s").outputs.at("stats")->bytes,
              result_of(g, first, "s").outputs.at("stats")->bytes);
    // Pure cheap ops are not kept on disk.
    EXPECT_FALSE(std::filesystem::exists(disk.entry_path(result_of(g, first, "c").key)));
}

TEST(DiskCache, CorruptOrTruncatedEntryIsAWarningAndRecomputed) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    DiskCache disk(dir.path().string());
    Graph g = test::valid_graph(kFitGraph, registry);
    Runner runner{g, &disk, {}};
    RunResult first = runner.run();
    const std::string entry = disk.entry_path(result_of(g, first, "fit").key);

    for (const char* damage : {"flip", "truncate", "empty"}) {
        SCOPED_TRACE(damage);
        std::string bytes = test::read_text(entry);
        ASSERT_GT(bytes.size(), 40u);
        if (std::string(damage) == "flip") bytes[bytes.size() / 2] ^= 0x5a;
        else if (std::string(damage) == "truncate") bytes.resize(bytes.size() - 5);
        else bytes.clear();
        test::write_text(entry, bytes);

        const int fits = test::plugin_runs("Fit");
        RunResult r = runner.run();
        EXPECT_EQ(result_of(g, r, "fit").status, NodeStatus::Ran);
        EXPECT_EQ(test::plugin_runs("Fit") - fits, 1);
        EXPECT_NE(runner.log_text.find("warning: node 'fit': cache entry " + entry + " is unusable"),
                  std::string::npos)
            << runner.log_text;
        EXPECT_FALSE(r.any_failed());
        // The recomputed result replaced the bad entry.
        EXPECT_EQ(result_of(g, runner.run(), "fit").status, NodeStatus::CachedDisk);
    }
}

TEST(DiskCache, NoDiskCacheMeansRecompute) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph(kFitGraph, registry);
    Runner runner{g, nullptr, {}};
    runner.run();
    EXPECT_EQ(result_of(g, runner.run(), "fit").status, NodeStatus::Ran);
}

TEST(DiskCache, FileReadersAreKeyedByContent) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    DiskCache disk((dir.path() / "cache").string());
    test::write_text(dir / "n.txt", "0.25\n");
    Graph g = test::valid_graph("fieldflow: 1\nvars: {file: x}\nnodes:\n"
                                "  n: {op: ReadNumber, params: {path: '${file}'}}\n"
                                "  fit: {op: Fit, inputs: {image: n}, params: {steps: 2}}\n",
                                registry, {{"file", dir / "n.txt"}});
    Runner runner{g, &disk, {}};
    RunResult first = runner.run();
    EXPECT_EQ(result_of(g, first, "fit").status, NodeStatus::Ran);

    // Same content written again: the reader runs, its downstream still hits the cache.
    test::write_text(dir / "n.txt", "0.25\n");
    const int reads = test::plugin_runs("ReadNumber");
    RunResult same = runner.run();
    EXPECT_EQ(test::plugin_runs("ReadNumber") - reads, 1);
    EXPECT_EQ(result_of(g, same, "n").status, NodeStatus::Ran);
    EXPECT_EQ(result_of(g, same, "fit").status, NodeStatus::CachedDisk);

    // New content: a new key downstream.
    test::write_text(dir / "n.txt", "0.75\n");
    RunResult changed = runner.run();
    EXPECT_EQ(result_of(g, changed, "fit").status, NodeStatus::Ran);
    EXPECT_NE(result_of(g, changed, "fit").key, result_of(g, first, "fit").key);
}

TEST(DiskCache, RoundTripAndDefensiveReads) {
    test::TempDir dir;
    DiskCache disk(dir.path().string());
    auto image = std::make_shared<Value>();
    image->type = "image";
    image->is_image = true;
    image->width = 2;
    image->height = 1;
    image->channels = 3;
    image->pixels = {0, 0.5f, 1, 0.25f, 0.75f, 1};
    auto blob = std::make_shared<Value>();
    blob->type = "model";
    blob->bytes = {std::byte{1}, std::byte{2}, std::byte{3}};
    const Hash128 key{0x1234, 0x5678};
    std::string warning;
    ASSERT_TRUE(disk.store(key, {{"image", image}, {"model", blob}}, warning)) << warning;
    auto loaded = disk.load(key, warning);
    ASSERT_TRUE(loaded.has_value()) << warning;
    EXPECT_EQ(loaded->at("image")->pixels, image->pixels);
    EXPECT_EQ(loaded->at("image")->width, 2u);
    EXPECT_EQ(loaded->at("model")->bytes, blob->bytes);
    EXPECT_EQ(loaded->at("model")->type, "model");

    EXPECT_FALSE(disk.load(Hash128{9, 9}, warning).has_value());
    EXPECT_EQ(warning, ""); // a plain miss is no warning

    // An entry filed under another key is refused.
    std::filesystem::create_directories(std::filesystem::path(disk.entry_path({7, 7})).parent_path());
    std::filesystem::copy_file(disk.entry_path(key), disk.entry_path({7, 7}));
    EXPECT_FALSE(disk.load({7, 7}, warning).has_value());
    EXPECT_NE(warning.find("header does not match its key"), std::string::npos) << warning;
    // No temp files are left behind.
    size_t files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path()))
        if (e.is_regular_file()) {
            ++files;
            EXPECT_EQ(e.path().extension(), ".ffc");
        }
    EXPECT_EQ(files, 2u);
}

TEST(DiskCache, DefaultFolder) {
    ::setenv("FIELDFLOW_CACHE_DIR", "/tmp/ff-explicit", 1);
    EXPECT_EQ(DiskCache::default_dir(), "/tmp/ff-explicit");
    ::unsetenv("FIELDFLOW_CACHE_DIR");
    ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(DiskCache::default_dir(), "/tmp/xdg/fieldflow");
    ::unsetenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    if (home) {
        EXPECT_EQ(DiskCache::default_dir(), std::string(home) + "/.cache/fieldflow");
    }
}

} // namespace
} // namespace fieldflow::host
