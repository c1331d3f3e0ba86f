// The scheduler: dependency order, parallel branches, failures, shared outputs, interrupts.
#include "test_support.hpp"

#include <fieldflow/host/scheduler.hpp>

#include <thread>

namespace fieldflow::host {
namespace {

const NodeResult& result_of(const Graph& g, const RunResult& r, const char* name) {
    long i = g.find(name);
    EXPECT_GE(i, 0) << name;
    return r.nodes.at(size_t(i));
}

const char* kTwoBranches = "fieldflow: 1\nnodes:\n"
                           "  c: {op: Constant}\n"
                           "  left: {op: Sleep, inputs: {image: c}, params: {ms: 300, tag: l}}\n"
                           "  right: {op: Sleep, inputs: {image: c}, params: {ms: 300, tag: r}}\n"
                           "  sum: {op: Add, inputs: {a: left, b: right}}\n";

TEST(Scheduler, IndependentBranchesOverlap) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph(kTwoBranches, registry);
    RunOptions options;
    options.jobs = 2;
    RunResult r = run_graph(g, options);
    const NodeResult& left = result_of(g, r, "left");
    const NodeResult& right = result_of(g, r, "right");
    ASSERT_EQ(left.status, NodeStatus::Ran);
    ASSERT_EQ(right.status, NodeStatus::Ran);
    // Both were running at the same moment: each started before the other finished.
    EXPECT_LT(std::max(left.started, right.started), std::min(left.finished, right.finished));
    // And the consumer started after both.
    EXPECT_GE(result_of(g, r, "sum").started, std::max(left.finished, right.finished));
    EXPECT_FALSE(r.any_failed());
}

TEST(Scheduler, OneJobRunsOneNodeAtATime) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph(kTwoBranches, registry);
    RunOptions options;
    options.jobs = 1;
    RunResult r = run_graph(g, options);
    const NodeResult& left = result_of(g, r, "left");
    const NodeResult& right = result_of(g, r, "right");
    EXPECT_GE(std::max(left.started, right.started), std::min(left.finished, right.finished));
}

TEST(Scheduler, AFailingNodeSkipsOnlyItsDependents) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  c: {op: Constant}\n"
                                "  broken: {op: Fail, inputs: {image: c}, params: {message: out of ink}}\n"
                                "  after: {op: Sleep, inputs: {image: broken}, params: {ms: 0}}\n"
                                "  later: {op: Stats, inputs: {image: after}}\n"
                                "  fine: {op: Stats, inputs: {image: c}}\n",
                                registry);
    RunResult r = run_graph(g, RunOptions{});
    EXPECT_EQ(result_of(g, r, "broken").status, NodeStatus::Failed);
    EXPECT_EQ(result_of(g, r, "broken").message, "out of ink");
    EXPECT_EQ(result_of(g, r, "after").status, NodeStatus::Skipped);
    EXPECT_EQ(result_of(g, r, "after").message, "input 'broken' failed");
    EXPECT_EQ(result_of(g, r, "later").status, NodeStatus::Skipped);
    EXPECT_EQ(result_of(g, r, "later").message, "input 'after' was skipped ('broken' failed)");
    EXPECT_EQ(result_of(g, r, "fine").status, NodeStatus::Ran);
    const auto& stats = result_of(g, r, "fine").outputs.at("stats");
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(stats->bytes.data()), stats->bytes.size()),
              "{\"mean\": 0.5}");
    EXPECT_TRUE(r.any_failed());
}

TEST(Scheduler, EachOutputIsComputedOnceAndShared) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  c: {op: Constant, params: {value: 0.125}}\n"
                                "  a: {op: Sleep, inputs: {image: c}, params: {ms: 0, tag: a}}\n"
                                "  b: {op: Sleep, inputs: {image: c}, params: {ms: 0, tag: b}}\n"
                                "  s: {op: Add, inputs: {a: c, b: c}}\n",
                                registry);
    const int before = test::plugin_runs("Constant");
    RunOptions options;
    options.jobs = 4;
    RunResult r = run_graph(g, options);
    EXPECT_EQ(test::plugin_runs("Constant") - before, 1);
    EXPECT_EQ(result_of(g, r, "s").outputs.at("sum")->pixels.at(0), 0.25f);
    EXPECT_EQ(result_of(g, r, "c").status, NodeStatus::Ran);
}

TEST(Scheduler, IdenticalNodesShareTheMemoryCache) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  one: {op: Constant, params: {value: 0.3}}\n"
                                "  two: {op: Constant, params: {value: 0.3}}\n",
                                registry);
    MemoryCache memory;
    RunOptions options;
    options.jobs = 1;
    options.memory = &memory;
    RunResult r = run_graph(g, options);
    EXPECT_EQ(result_of(g, r, "one").status, NodeStatus::Ran);
    EXPECT_EQ(result_of(g, r, "two").status, NodeStatus::CachedMemory);
    EXPECT_EQ(result_of(g, r, "one").outputs.at("image"), result_of(g, r, "two").outputs.at("image"));
}

TEST(Scheduler, SuccessWithoutAnOutputIsAFailure) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n  lazy: {op: Lazy}\n", registry);
    RunResult r = run_graph(g, RunOptions{});
    EXPECT_EQ(r.nodes[0].status, NodeStatus::Failed);
    EXPECT_EQ(r.nodes[0].message, "op 'Lazy' returned success without writing output 'image'");
}

TEST(Scheduler, ParamErrorsAtRunTimeNameTheParamsPosition) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  n:\n"
                                "    op: ReadNumber\n"
                                "    params: {path: /nonexistent/number.txt}\n",
                                registry);
    RunResult r = run_graph(g, RunOptions{});
    EXPECT_EQ(r.nodes[0].status, NodeStatus::Failed);
    EXPECT_EQ(r.nodes[0].message, "param 'path' (test.yaml:5:20): cannot read a number from the file");
}

TEST(Scheduler, InterruptStopsRunningNodesAndStartsNoNewOnes) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  c: {op: Constant}\n"
                                "  slow: {op: Sleep, inputs: {image: c}, params: {ms: 20000}}\n"
                                "  next: {op: Stats, inputs: {image: slow}}\n",
                                registry);
    std::atomic<bool> cancel{false};
    RunOptions options;
    options.cancel = &cancel;
    // Interrupts once the slow node is executing (a sign, not a guess at how long starting takes).
    const int sleeps = test::plugin_runs("Sleep");
    std::atomic<bool> finished{false};
    std::thread interrupter([&] {
        while (test::plugin_runs("Sleep") == sleeps && !finished) std::this_thread::yield();
        cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    RunResult r = run_graph(g, options);
    finished = true;
    interrupter.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(result_of(g, r, "slow").status, NodeStatus::Cancelled);
    EXPECT_EQ(result_of(g, r, "next").status, NodeStatus::NotRun);
    EXPECT_FALSE(r.any_failed());
}

TEST(Scheduler, FileWritingOpsAlwaysRun) {
    OpRegistry registry = test::test_registry();
    test::TempDir dir;
    Graph g = test::valid_graph("fieldflow: 1\nvars: {out: x}\nnodes:\n"
                                "  c: {op: Constant, params: {value: 0.75}}\n"
                                "  w: {op: WriteNumber, inputs: {image: c}, params: {path: '${out}'}}\n",
                                registry, {{"out", dir / "mean.txt"}});
    MemoryCache memory;
    RunOptions options;
    options.memory = &memory;
    EXPECT_EQ(run_graph(g, options).nodes[1].status, NodeStatus::Ran);
    EXPECT_EQ(test::read_text(dir / "mean.txt"), "0.75\n");
    std::filesystem::remove(dir / "mean.txt");
    RunResult again = run_graph(g, options);
    EXPECT_EQ(again.nodes[0].status, NodeStatus::CachedMemory);
    EXPECT_EQ(again.nodes[1].status, NodeStatus::Ran);
    EXPECT_EQ(test::read_text(dir / "mean.txt"), "0.75\n");
}

// The JSON text of a blob output.
std::string blob_text(const NodeResult& result, const char* port) {
    const ValuePtr& value = result.outputs.at(port);
    return std::string(reinterpret_cast<const char*>(value->bytes.data()), value->bytes.size());
}

TEST(Scheduler, PrepareRunsForEachNodeWithItsParamsAndTheRunsDevice) {
    OpRegistry registry = test::test_registry();
    // `late` waits behind a slow node, so its prepare runs long before its inputs exist; `early`
    // has none, so its execute may start before its prepare: Warm's execute waits for the sign.
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  c: {op: Constant}\n"
                                "  slow: {op: Sleep, inputs: {image: c}, params: {ms: 200}}\n"
                                "  late: {op: Warm, inputs: {image: slow}, params: {tag: late-1}}\n"
                                "  early: {op: Warm, params: {tag: early-1}}\n",
                                registry);
    RunOptions options;
    options.device = "cpu";
    RunResult r = run_graph(g, options);
    ASSERT_FALSE(r.any_failed()) << result_of(g, r, "late").message << result_of(g, r, "early").message;
    EXPECT_EQ(blob_text(result_of(g, r, "late"), "prepared"), "{\"prepared\": \"late-1@cpu\"}");
    EXPECT_EQ(blob_text(result_of(g, r, "early"), "prepared"), "{\"prepared\": \"early-1@cpu\"}");
}

// How often `part` occurs in `text`.
size_t occurrences(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

TEST(Scheduler, ReleaseFollowsEachPreparedNodeOnceItHasSettled) {
    OpRegistry registry = test::test_registry();
    // `ran` runs; `skipped` never does (its input fails) and is released all the same.
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  c: {op: Constant}\n"
                                "  ran: {op: Warm, inputs: {image: c}, params: {tag: rel-ran}}\n"
                                "  broken: {op: Fail, inputs: {image: c}}\n"
                                "  skipped: {op: Warm, inputs: {image: broken}, params: {tag: rel-skipped}}\n",
                                registry);
    RunResult r = run_graph(g, RunOptions{});
    EXPECT_EQ(result_of(g, r, "ran").status, NodeStatus::Ran);
    EXPECT_EQ(result_of(g, r, "skipped").status, NodeStatus::Skipped);
    const std::string records = test::warm_records(); // complete: the run joined its hooks' thread
    EXPECT_EQ(occurrences(records, ";rel-ran@auto"), 1u) << records;
    EXPECT_EQ(occurrences(records, ";released:rel-ran"), 1u) << records;
    EXPECT_LT(records.find(";ran:rel-ran"), records.find(";released:rel-ran")) << records;
    EXPECT_EQ(occurrences(records, ";rel-skipped@auto"), 1u) << records;
    EXPECT_EQ(occurrences(records, ";released:rel-skipped"), 1u) << records;
    EXPECT_EQ(occurrences(records, ";ran:rel-skipped"), 0u) << records;
    // Every release comes after every prepare of the run.
    EXPECT_LT(records.find(";rel-skipped@auto"),
              std::min(records.find(";released:rel-ran"), records.find(";released:rel-skipped")))
        << records;
}

TEST(Scheduler, AFailingPrepareIsNotTheNodesFailure) {
    OpRegistry registry = test::test_registry();
    // Its prepare also tries to write an output, which the host refuses.
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n"
                                "  w: {op: Warm, params: {tag: failing-1, fail_prepare: true}}\n",
                                registry);
    RunResult r = run_graph(g, RunOptions{});
    const NodeResult& w = result_of(g, r, "w");
    ASSERT_EQ(w.status, NodeStatus::Ran) << w.message;
    EXPECT_EQ(blob_text(w, "prepared"), "{\"prepared\": \"failing-1@auto\"}");
}

} // namespace
} // namespace fieldflow::host
