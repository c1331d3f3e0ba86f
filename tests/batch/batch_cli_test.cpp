// The built `fieldflow batch` on real folders: bad files are isolated and reported, a SIGKILLed
// batch resumes to the same result, SIGTERM stops cleanly, shards merge into the unsharded
// result, and usage errors exit 2.
#include "batch_test_support.hpp"

#include <sys/file.h>

#include <chrono>
#include <csignal>
#include <map>
#include <set>
#include <thread>

namespace fieldflow::batch_test {
namespace {

using nlohmann::json;

const std::string kTestPlugin = FF_TEST_PLUGIN;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The baseline graph slowed down by the host tests' Sleep op, so a batch can be stopped half-way.
fs::path write_slow_graph(const fs::path& dir) {
    const fs::path graph = dir / "slow.yaml";
    write_text(graph, R"(fieldflow: 1
vars: {input: ~, output: ~, stem: ~, sleep: 400}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  wait: {op: Sleep, inputs: {image: image}, params: {ms: "${sleep}", tag: "${stem}"}}
  baseline: {op: BilinearBaseline, inputs: {image: wait}}
  metrics: {op: Metrics, inputs: {reference: image, image: baseline}}
  save_metrics: {op: WriteJson, inputs: {json: metrics}, params: {path: "${output}/metrics.json"}}
  save_baseline: {op: WriteImage, inputs: {image: baseline}, params: {path: "${output}/bilinear.png"}}
)");
    return graph;
}

// stem -> (status, PSNR as text or "-"): what two runs must agree on.
std::map<std::string, std::pair<std::string, std::string>> outcome(const fs::path& summary_json) {
    const json j = read_json(summary_json);
    EXPECT_FALSE(j.is_discarded()) << summary_json;
    std::map<std::string, std::pair<std::string, std::string>> out;
    if (j.is_discarded()) return out;
    for (const json& image : j["images"]) {
        const json& psnr = image["metrics"]["psnr"];
        out[image["stem"]] = {image["status"], psnr.is_number() ? std::to_string(psnr.get<double>()) : "-"};
    }
    return out;
}

// The folders in place in a batch output (neither logs nor hidden).
std::set<std::string> image_folders(const fs::path& out) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(out)) {
        const std::string name = e.path().filename().string();
        if (e.is_directory() && name != "logs" && name.front() != '.') names.insert(name);
    }
    return names;
}

std::set<std::string> done_stems(const fs::path& manifest) {
    std::set<std::string> stems;
    std::istringstream in(read_text(manifest));
    for (std::string line; std::getline(in, line);) {
        const json j = json::parse(line, nullptr, false);
        if (!j.is_discarded() && j["status"] == "done") stems.insert(j["stem"].get<std::string>());
    }
    return stems;
}

bool partial_is_empty(const fs::path& out) {
    std::error_code ec;
    return !fs::exists(out / ".partial") || fs::is_empty(out / ".partial", ec);
}

// The stems whose partial folders lie in .partial/ (from the notes beside them).
std::set<std::string> partial_stems(const fs::path& out) {
    std::set<std::string> stems;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out / ".partial", ec))
        if (e.path().extension() == ".attempt") {
            std::istringstream note(read_text(e.path()));
            std::string stem;
            std::getline(note, stem);
            stems.insert(stem);
        }
    return stems;
}

// Waits until the manifest records `count` done images; false after `seconds`.
bool wait_for_done(const fs::path& manifest, size_t count, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        if (fs::exists(manifest) && done_lines(manifest) >= count) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

// Waits until an image not yet done, and not one of `earlier`, is in flight (its partial folder
// exists); false after `seconds`.
bool wait_for_in_flight(const fs::path& out, const std::set<std::string>& earlier, double seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        const std::set<std::string> done = done_stems(out / "manifest.jsonl");
        for (const std::string& stem : partial_stems(out))
            if (!done.count(stem) && !earlier.count(stem)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

std::map<std::string, fs::file_time_type> mtimes(const fs::path& out, const std::set<std::string>& stems) {
    std::map<std::string, fs::file_time_type> times;
    for (const std::string& s : stems) {
        times[s] = fs::last_write_time(out / s);
        for (const auto& e : fs::directory_iterator(out / s))
            times[s + "/" + e.path().filename().string()] = fs::last_write_time(e.path());
    }
    return times;
}

TEST(BatchCli, BadFilesAreIsolatedAndReportedWithReasons) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    write_crop(in / "crop0.png", 0);
    write_crop(in / "crop1.png", 1);
    write_crop(in / "crop2.jpg", 2);
    write_bad_files(in);

    const Output run = fieldflow("batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) +
                                 " --output " + q(out) + " --jobs 2 --no-cache");
    EXPECT_EQ(run.code, 1) << run.text;

    const json summary = read_json(out / "summary.json");
    ASSERT_FALSE(summary.is_discarded()) << run.text;
    EXPECT_EQ(summary["totals"]["images"], 6);
    EXPECT_EQ(summary["totals"]["done"], 3);
    EXPECT_EQ(summary["totals"]["failed"], 3);
    std::map<std::string, json> by_stem;
    for (const json& image : summary["images"]) by_stem[image["stem"]] = image;
    for (const char* good : {"crop0", "crop1", "crop2"}) {
        const json& r = by_stem[good];
        EXPECT_EQ(r["status"], "done") << r.dump();
        EXPECT_EQ(r["error"], "");
        ASSERT_TRUE(r["metrics"]["psnr"].is_number()) << r.dump();
        EXPECT_GT(r["metrics"]["psnr"].get<double>(), 10.0);
        EXPECT_LT(r["metrics"]["psnr"].get<double>(), 60.0);
        EXPECT_TRUE(fs::exists(out / good / "metrics.json"));
        EXPECT_TRUE(fs::exists(out / good / "bilinear.png"));
        // The summary's number is the image's own metrics.json.
        EXPECT_EQ(read_json(out / good / "metrics.json")["psnr"], r["metrics"]["psnr"]);
    }
    const std::map<std::string, std::string> reasons = {
        {"corrupt", "truncated JPEG"}, {"empty", "is empty (0 bytes)"}, {"notes", "cannot decode"}};
    for (const auto& [stem, reason] : reasons) {
        const json& r = by_stem[stem];
        EXPECT_EQ(r["status"], "failed") << r.dump();
        EXPECT_TRUE(contains(r["error"], reason)) << r["error"];
        EXPECT_TRUE(contains(r["error"], stem)) << r["error"]; // names the file
        EXPECT_FALSE(fs::exists(out / stem)) << "a failed image left outputs in place";
        EXPECT_TRUE(contains(read_text(out / "logs" / (stem + ".log")), reason));
        EXPECT_TRUE(contains(run.text, "failed " + stem + ": ")) << run.text;
    }
    EXPECT_EQ(image_folders(out), (std::set<std::string>{"crop0", "crop1", "crop2"}));
    EXPECT_TRUE(partial_is_empty(out));

    const std::string csv = read_text(out / "summary.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7) << csv;
    EXPECT_TRUE(contains(csv, "corrupt,failed,")) << csv;
    const std::string html = read_text(out / "index.html");
    EXPECT_TRUE(contains(html, "6 images: 3 done, 3 failed")) << html;
    EXPECT_TRUE(contains(html, "<a href=\"crop0/\">crop0</a>"));
    EXPECT_EQ(done_stems(out / "manifest.jsonl"), (std::set<std::string>{"crop0", "crop1", "crop2"}));
}

TEST(BatchCli, AllGoodExitsZero) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    write_crop(in / "a.png", 3);
    write_crop(in / "b.png", 4);
    const Output run = fieldflow("batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) +
                                 " --output " + q(out) + " --no-cache -q");
    EXPECT_EQ(run.code, 0) << run.text;
    EXPECT_EQ(outcome(out / "summary.json").size(), 2u);
    EXPECT_FALSE(contains(run.text, "done a")) << "--quiet still printed progress: " << run.text;
}

TEST(BatchCli, SigkillThenResumeSkipsFinishedImagesAndMatchesAnUninterruptedRun) {
    TempDir dir;
    const fs::path in = dir / "in";
    fs::create_directories(in);
    for (int i = 0; i < 8; ++i) write_crop(in / ("img" + std::to_string(i) + ".png"), i);
    write_text(in / "broken.png", "not an image");
    const fs::path graph = write_slow_graph(dir.path());
    auto args = [&](const fs::path& out) {
        return std::vector<std::string>{"batch", graph.string(), "--input", in.string(), "--output",
                                        out.string(), "--jobs", "2", "--no-cache", "--plugin", kTestPlugin};
    };

    // The reference: one uninterrupted run.
    const fs::path ref = dir / "ref";
    const pid_t whole = start_fieldflow(args(ref), dir / "ref.log");
    EXPECT_EQ(wait_exit(whole), 1) << read_text(dir / "ref.log");
    const auto expected = outcome(ref / "summary.json");
    ASSERT_EQ(expected.size(), 9u) << read_text(dir / "ref.log");

    // Killed after the first image is done.
    const fs::path out = dir / "out";
    const pid_t batch = start_fieldflow(args(out), dir / "killed.log");
    const bool started = wait_for_done(out / "manifest.jsonl", 1, 60);
    ::kill(batch, SIGKILL);
    EXPECT_EQ(wait_exit(batch), 128 + SIGKILL);
    ASSERT_TRUE(started) << read_text(dir / "killed.log");
    const std::set<std::string> finished = done_stems(out / "manifest.jsonl");
    ASSERT_LT(finished.size(), 8u) << "the batch finished before it was killed; the test proves nothing";
    // Only complete images are in place; what was in flight lies in .partial/ at most.
    EXPECT_EQ(image_folders(out), finished);
    EXPECT_FALSE(fs::exists(out / "summary.json"));
    const auto before = mtimes(out, finished);
    // The killed batch's image processes die with it (they would otherwise keep writing).
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    std::set<std::string> partial_before;
    if (fs::exists(out / ".partial"))
        for (const auto& e : fs::recursive_directory_iterator(out / ".partial"))
            partial_before.insert(e.path().string());
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    std::set<std::string> partial_after;
    if (fs::exists(out / ".partial"))
        for (const auto& e : fs::recursive_directory_iterator(out / ".partial"))
            partial_after.insert(e.path().string());
    EXPECT_EQ(partial_before, partial_after) << "an orphaned image process is still writing";

    const Output resumed = fieldflow("batch " + q(graph) + " --input " + q(in) + " --output " + q(out) +
                                     " --jobs 2 --no-cache --plugin " + kTestPlugin + " --resume");
    EXPECT_EQ(resumed.code, 1) << resumed.text;
    for (const std::string& s : finished) {
        EXPECT_TRUE(contains(resumed.text, "skipped " + s + " (done in an earlier run)")) << resumed.text;
        EXPECT_FALSE(contains(resumed.text, "started " + s + "\n")) << resumed.text;
    }
    EXPECT_EQ(mtimes(out, finished), before) << "a finished image was redone";
    EXPECT_EQ(outcome(out / "summary.json"), expected);
    EXPECT_TRUE(partial_is_empty(out));
    EXPECT_EQ(image_folders(out), image_folders(ref));
    EXPECT_EQ(done_stems(out / "manifest.jsonl"), done_stems(ref / "manifest.jsonl"));

    // Resuming a finished batch runs nothing.
    const Output again = fieldflow("batch " + q(graph) + " --input " + q(in) + " --output " + q(out) +
                                   " --no-cache --plugin " + kTestPlugin + " --resume");
    EXPECT_EQ(again.code, 1);
    EXPECT_FALSE(contains(again.text, "started img")) << again.text;
    EXPECT_TRUE(contains(again.text, "started broken")) << again.text; // failed ones are redone
}

TEST(BatchCli, ResumeRedoesChangedInputsAndChangedValues) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    write_crop(in / "a.png", 5);
    write_crop(in / "b.png", 6);
    const std::string base = "batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) +
                             " --output " + q(out) + " --no-cache";
    ASSERT_EQ(fieldflow(base).code, 0);
    write_crop(in / "b.png", 7); // new content, same name
    Output r = fieldflow(base + " --resume");
    EXPECT_EQ(r.code, 0) << r.text;
    EXPECT_TRUE(contains(r.text, "skipped a (done in an earlier run)")) << r.text;
    EXPECT_TRUE(contains(r.text, "done b")) << r.text;
    r = fieldflow(base + " --resume --set grid=8x6"); // other values: a different graph hash
    EXPECT_EQ(r.code, 0) << r.text;
    EXPECT_TRUE(contains(r.text, "done a")) << r.text;
    EXPECT_TRUE(contains(r.text, "done b")) << r.text;
    // Without --resume everything runs again, replacing the folders in place.
    r = fieldflow(base);
    EXPECT_EQ(r.code, 0) << r.text;
    EXPECT_TRUE(contains(r.text, "done a")) << r.text;
    EXPECT_EQ(image_folders(out), (std::set<std::string>{"a", "b"}));
    EXPECT_TRUE(partial_is_empty(out));
}

TEST(BatchCli, SigtermStopsCleanlyAndResumeFinishes) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    for (int i = 0; i < 6; ++i) write_crop(in / ("p" + std::to_string(i) + ".png"), i + 10);
    const fs::path graph = write_slow_graph(dir.path());
    const pid_t batch = start_fieldflow({"batch", graph.string(), "--input", in.string(), "--output",
                                         out.string(), "--jobs", "2", "--no-cache", "--plugin", kTestPlugin,
                                         "--set", "sleep=1500"},
                                        dir / "term.log");
    // Stopped while an image is in flight with its whole sleep ahead of it: one launched after the
    // first finished. (The image launched beside the first finishes with it, so seeing it in
    // flight says nothing: it may be done before the signal lands, leaving nothing to stop.)
    const bool first_done = wait_for_done(out / "manifest.jsonl", 1, 60);
    const bool started = first_done && wait_for_in_flight(out, partial_stems(out), 60);
    ::kill(batch, SIGTERM);
    EXPECT_EQ(wait_exit(batch), 143) << read_text(dir / "term.log");
    ASSERT_TRUE(started) << read_text(dir / "term.log");
    const json summary = read_json(out / "summary.json");
    ASSERT_FALSE(summary.is_discarded()) << read_text(dir / "term.log");
    EXPECT_TRUE(summary["interrupted"].get<bool>());
    EXPECT_EQ(summary["totals"]["failed"], 0) << "stopped images must not count as failed";
    EXPECT_GT(summary["totals"]["not_run"].get<int>(), 0);
    const std::set<std::string> done = done_stems(out / "manifest.jsonl");
    EXPECT_EQ(image_folders(out), done);
    // The stopped images' partial folders stay for --resume; no finished image's does.
    const std::set<std::string> stopped = partial_stems(out);
    EXPECT_FALSE(stopped.empty()) << read_text(dir / "term.log") << read_text(out / "manifest.jsonl");
    for (const std::string& stem : stopped) EXPECT_EQ(done.count(stem), 0u) << stem;

    const Output resumed = fieldflow("batch " + q(graph) + " --input " + q(in) + " --output " + q(out) +
                                     " --jobs 3 --no-cache --plugin " + kTestPlugin +
                                     " --set sleep=1500 --resume");
    EXPECT_EQ(resumed.code, 0) << resumed.text;
    EXPECT_EQ(read_json(out / "summary.json")["totals"]["done"], 6);
    for (const std::string& stem : stopped)
        EXPECT_TRUE(contains(resumed.text, "resuming " + stem + " in the folder of its interrupted run"))
            << resumed.text;
    EXPECT_TRUE(partial_is_empty(out));
}

TEST(BatchCli, ResumeLeadsAnInterruptedNodeBackToItsState) {
    // The node's work (hence its cache key and state folder) depends on the image's output folder,
    // as Train's does through `snapshots: ${output}/snapshots`: only a resumed image run in the same
    // partial folder finds the state its interrupted run left (here a count of executions).
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out", cache = dir / "cache";
    fs::create_directories(in);
    write_crop(in / "only.png", 3);
    const fs::path graph = dir / "resumable.yaml";
    write_text(graph, R"(fieldflow: 1
vars: {input: ~, output: ~}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  work: {op: Resumable, inputs: {image: image}, params: {fail_if_exists: "${output}/never", sleep_ms: 3000}}
  save: {op: WriteJson, inputs: {json: work}, params: {path: "${output}/state.json"}}
)");
    std::vector<std::string> args = {"batch", graph.string(), "--input", in.string(), "--output",
                                     out.string(), "--cache", cache.string(), "--plugin", kTestPlugin};
    const pid_t batch = start_fieldflow(args, dir / "first.log");
    // Interrupted once the node has counted its execution in its state folder.
    bool counted = false;
    for (int i = 0; i < 3000 && !counted; ++i) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(cache / "state", ec))
            counted = counted || fs::exists(e.path() / "count");
        if (!counted) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(batch, SIGTERM);
    EXPECT_EQ(wait_exit(batch), 143) << read_text(dir / "first.log");
    ASSERT_TRUE(counted) << read_text(dir / "first.log");
    EXPECT_EQ(partial_stems(out), std::set<std::string>{"only"});

    args.push_back("--resume");
    const pid_t again = start_fieldflow(args, dir / "second.log");
    EXPECT_EQ(wait_exit(again), 0) << read_text(dir / "second.log");
    EXPECT_TRUE(contains(read_text(dir / "second.log"), "resuming only in the folder of its interrupted run"))
        << read_text(dir / "second.log");
    const json state = read_json(out / "only" / "state.json");
    EXPECT_EQ(state["earlier"], 1) << "the resumed run did not find its state: " << state.dump();
    EXPECT_TRUE(partial_is_empty(out));
    std::error_code ec;
    EXPECT_TRUE(fs::is_empty(cache / "state", ec)) << "the finished node's state folder was left";
}

TEST(BatchCli, ShardsMergeIntoTheUnshardedResult) {
    TempDir dir;
    const fs::path in = dir / "in";
    fs::create_directories(in);
    for (int i = 0; i < 7; ++i) write_crop(in / ("s" + std::to_string(i) + ".png"), i + 20);
    write_text(in / "zero.jpg", "");
    const std::string base = "batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) + " --no-cache --jobs 2";

    EXPECT_EQ(fieldflow(base + " --output " + q(dir / "all")).code, 1);
    std::string shard_dirs;
    std::set<std::string> seen;
    for (int k = 0; k < 3; ++k) {
        const fs::path out = dir / ("shard" + std::to_string(k));
        const Output r = fieldflow(base + " --output " + q(out) + " --shard " + std::to_string(k) + "/3");
        EXPECT_LE(r.code, 1) << r.text;
        const json s = read_json(out / "summary.json");
        EXPECT_EQ(s["shard"], std::to_string(k) + "/3");
        for (const json& image : s["images"]) {
            EXPECT_EQ(image["shard"], std::to_string(k) + "/3");
            EXPECT_TRUE(seen.insert(image["stem"].get<std::string>()).second) << "in two shards: " << image["stem"];
        }
        shard_dirs += " " + q(out);
    }
    EXPECT_EQ(seen.size(), 8u);

    const fs::path merged = dir / "merged";
    const Output m = fieldflow("batch --merge" + shard_dirs + " --output " + q(merged));
    EXPECT_EQ(m.code, 1) << m.text; // zero.jpg failed
    EXPECT_EQ(outcome(merged / "summary.json"), outcome(dir / "all" / "summary.json"));
    // The merged summary links into the shard folders.
    const json merged_summary = read_json(merged / "summary.json");
    for (const json& image : merged_summary["images"]) {
        if (image["status"] != "done") continue;
        EXPECT_TRUE(fs::exists(merged / image["folder"].get<std::string>() / "metrics.json")) << image.dump();
        EXPECT_TRUE(fs::exists(merged / image["log"].get<std::string>())) << image.dump();
    }
    EXPECT_TRUE(contains(read_text(merged / "index.html"), "8 images: 7 done, 1 failed"));

    // A missing shard is reported, and the merge says the result is incomplete.
    const Output partial = fieldflow("batch --merge " + q(dir / "shard0") + " " + q(dir / "shard2") +
                                     " --output " + q(dir / "merged2"));
    EXPECT_EQ(partial.code, 1);
    EXPECT_TRUE(contains(partial.text, "shard 1/3 is missing")) << partial.text;

    // A merge writes its summaries only into a folder a batch marked (or a new or empty one):
    // a folder of the user's keeps its page, and the merge says why it stopped.
    const fs::path users = dir / "users";
    fs::create_directories(users);
    write_text(users / "index.html", "my page");
    const Output refused = fieldflow("batch --merge" + shard_dirs + " --output " + q(users));
    EXPECT_EQ(refused.code, 2) << refused.text;
    EXPECT_TRUE(contains(refused.text, "already holds files fieldflow batch did not write (e.g. 'index.html')"))
        << refused.text;
    EXPECT_EQ(read_text(users / "index.html"), "my page");
    EXPECT_FALSE(fs::exists(users / "summary.json"));
    // Merging again into its own earlier result is fine.
    EXPECT_EQ(fieldflow("batch --merge" + shard_dirs + " --output " + q(merged)).code, 1);
}

TEST(BatchCli, UsageAndGraphErrorsExitTwo) {
    TempDir dir;
    const fs::path in = dir / "in";
    fs::create_directories(in);
    write_crop(in / "a.png", 1);
    const std::string g = FF_BASELINE_GRAPH;
    const std::string io = " --input " + q(in) + " --output " + q(dir / "out");

    Output r = fieldflow("batch " + g + io + " --set input=x.png");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "the batch sets 'input' for each image")) << r.text;
    r = fieldflow("batch " + g + io + " --shard 3/3");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "expected I/N with 0 <= I < N")) << r.text;
    EXPECT_EQ(fieldflow("batch " + g + " --output " + q(dir / "out")).code, 2); // no --input
    EXPECT_EQ(fieldflow("batch " + g + io + " --devices 0,gpu").code, 2);
    EXPECT_EQ(fieldflow("batch " + g + io + " --jobs 0").code, 2);
    r = fieldflow("batch " + g + " --input " + q(dir / "missing") + " --output " + q(dir / "out"));
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "is not a folder")) << r.text;
    r = fieldflow("batch " + g + io + " --glob '*.tif'");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "no images in")) << r.text;

    write_text(dir / "novars.yaml", "fieldflow: 1\nnodes:\n  image: {op: ReadImage, params: {path: a.png}}\n");
    r = fieldflow("batch " + q(dir / "novars.yaml") + io);
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "must declare the variables 'input' and 'output'")) << r.text;
    write_text(dir / "bad.yaml", "fieldflow: 1\nvars: {input: ~, output: ~}\nnodes:\n"
                                 "  image: {op: ReadImg, params: {path: \"${input}\"}}\n");
    r = fieldflow("batch " + q(dir / "bad.yaml") + io);
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "unknown op 'ReadImg'")) << r.text;
    EXPECT_FALSE(fs::exists(dir / "out")) << "nothing may run (or be created) for an invalid graph";

    // Output and input folders that contain each other: refused before anything is created.
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(in / "results"));
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "is inside --input")) << r.text;
    EXPECT_FALSE(fs::exists(in / "results"));
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(dir.path()));
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "is inside --output")) << r.text;
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(in));
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "are the same folder")) << r.text;
    EXPECT_EQ(std::distance(fs::directory_iterator(in), fs::directory_iterator()), 1) << "only a.png";

    r = fieldflow("batch --merge " + q(dir / "nowhere") + " --output " + q(dir / "m"));
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "holds no batch")) << r.text;
    EXPECT_EQ(fieldflow("batch --merge " + q(dir / "x")).code, 2); // no --output
    EXPECT_EQ(fieldflow("batch " + g + " --merge " + q(dir / "x") + " --output " + q(dir / "m")).code, 2);
}

// Every file under `dir` (relative path -> bytes; folders as "<dir>"): what must not change.
std::map<std::string, std::string> snapshot(const fs::path& dir) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        const std::string name = fs::relative(e.path(), dir).string();
        files[name] = e.is_directory() ? std::string("<dir>") : read_text(e.path());
    }
    return files;
}

// The two ways a batch used to delete a user's files (issue 19): an output folder that is the
// input folder (its image folder `trip/` replaced the user's folder `trip/`), and an existing
// output folder holding a same-named folder and summary files. Both are refused before anything
// is written, and neither folder changes by a byte.
TEST(BatchCli, NeverDeletesOrReplacesTheUsersFiles) {
    TempDir dir;
    const fs::path in = dir / "bx", other = dir / "other";
    fs::create_directories(in / "trip");
    write_crop(in / "trip.png", 1);
    write_crop(in / "trip" / "precious_photo.png", 2);
    const auto input_before = snapshot(in);
    const std::string g = FF_BASELINE_GRAPH;

    Output r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(in) + " --no-cache");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "are the same folder; give the results a folder of their own")) << r.text;
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(in / "results") + " --no-cache");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "is inside --input")) << r.text;
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(dir.path()) + " --no-cache");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "is inside --output")) << r.text;
    EXPECT_EQ(snapshot(in), input_before);

    fs::create_directories(other / "trip");
    write_crop(other / "trip" / "precious_photo.png", 3);
    write_text(other / "index.html", "my page");
    write_text(other / "summary.csv", "my,table");
    const auto other_before = snapshot(other);
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(other) + " --no-cache");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "already holds files fieldflow batch did not write")) << r.text;
    EXPECT_EQ(snapshot(other), other_before);
    EXPECT_EQ(snapshot(in), input_before);

    // A folder of the user's put into a batch's own output folder is left alone too: that image
    // fails, saying so, and the folder keeps its bytes.
    const fs::path out = dir / "out";
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(out) + " --no-cache");
    ASSERT_EQ(r.code, 0) << r.text;
    EXPECT_TRUE(fs::exists(out / ".fieldflow-batch"));
    EXPECT_FALSE(fs::exists(out / ".lock")) << "the lock is removed when the batch ends";
    fs::remove_all(out / "trip");
    fs::create_directories(out / "trip");
    write_crop(out / "trip" / "precious_photo.png", 4);
    const auto users_folder = snapshot(out / "trip");
    r = fieldflow("batch " + g + " --input " + q(in) + " --output " + q(out) + " --no-cache");
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(contains(r.text, "exists and was not written by fieldflow batch")) << r.text;
    EXPECT_EQ(snapshot(out / "trip"), users_folder);
    EXPECT_EQ(snapshot(in), input_before);

    // Another input folder's batch output is not taken over either.
    const fs::path in2 = dir / "in2";
    fs::create_directories(in2);
    write_crop(in2 / "b.png", 5);
    r = fieldflow("batch " + g + " --input " + q(in2) + " --output " + q(out) + " --no-cache");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "holds the results of a batch of")) << r.text;
}

// A rerun (without --resume) replaces the image folders it wrote, but only the files it wrote
// there: a note and a folder the user put beside the results stay, byte for byte, and the batch
// names them.
TEST(BatchCli, RerunKeepsTheUsersFilesInAnImageFolder) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    write_crop(in / "a.png", 1);
    const std::string command = "batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) +
                                " --output " + q(out) + " --no-cache";
    Output r = fieldflow(command);
    ASSERT_EQ(r.code, 0) << r.text;
    write_text(out / "a" / "my_notes.txt", "my notes on this photo\n");
    fs::create_directories(out / "a" / "mydir");
    write_text(out / "a" / "mydir" / "draft.txt", "a draft\n");
    write_crop(out / "a" / "mydir" / "edit.png", 7);
    const auto mine = snapshot(out / "a" / "mydir");
    const std::string notes = read_text(out / "a" / "my_notes.txt");

    r = fieldflow(command);
    ASSERT_EQ(r.code, 0) << r.text;
    EXPECT_EQ(read_text(out / "a" / "my_notes.txt"), notes);
    ASSERT_TRUE(fs::is_directory(out / "a" / "mydir")) << r.text;
    EXPECT_EQ(snapshot(out / "a" / "mydir"), mine);
    EXPECT_TRUE(fs::exists(out / "a" / "metrics.json"));
    EXPECT_TRUE(contains(r.text, "kept")) << r.text;
    EXPECT_TRUE(contains(r.text, "my_notes.txt")) << r.text;
    EXPECT_TRUE(contains(r.text, "mydir")) << r.text;
    EXPECT_TRUE(partial_is_empty(out));

    // A file of the user's with the name of one of the results is not replaced either: that
    // image fails, saying so, and everything in its folder stays as it was.
    fs::remove(out / "a" / "bilinear.png");
    write_text(out / "a" / "bilinear.png", "my own picture, not the batch's\n");
    const auto before = snapshot(out / "a");
    r = fieldflow(command);
    EXPECT_EQ(r.code, 1) << r.text;
    EXPECT_TRUE(contains(r.text, "bilinear.png")) << r.text;
    EXPECT_EQ(snapshot(out / "a"), before);
}

TEST(BatchCli, JobsMustBeFromOneTo256) {
    TempDir dir;
    const fs::path in = dir / "in";
    fs::create_directories(in);
    write_crop(in / "a.png", 1);
    for (const char* jobs : {"-1", "0", "257", "4294967295"}) {
        const Output r = fieldflow("batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) +
                                   " --output " + q(dir / "out") + " --jobs " + jobs);
        EXPECT_EQ(r.code, 2) << jobs;
        EXPECT_TRUE(contains(r.text, std::string("--jobs ") + jobs + " is out of range: give a whole number from 1 to 256"))
            << r.text;
    }
    const Output r = fieldflow("batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) + " --output " +
                               q(dir / "out") + " --jobs x");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "--jobs x is not a number: give a whole number from 1 to 256")) << r.text;
    EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(BatchCli, OneBatchPerOutputFolder) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    fs::create_directories(out);
    write_crop(in / "a.png", 1);
    // The folder of an earlier batch of the same input, now locked as a running batch holds it.
    write_text(out / ".fieldflow-batch", "fieldflow batch output\ninput " + in.string() + "\n");
    const int fd = ::open((out / ".lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0); // as a running batch holds it
    const Output r = fieldflow("batch " + std::string(FF_BASELINE_GRAPH) + " --input " + q(in) +
                               " --output " + q(out) + " --no-cache");
    ::close(fd);
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(contains(r.text, "another batch is writing to")) << r.text;
    EXPECT_FALSE(fs::exists(out / "a"));
}

#ifdef FF_LAKE_GRAPH
// The learned pipeline: the summary reads the Report node's metrics.json and links its report. The
// dense grid: on a 32x24 photo the hash grid's smallest table holds more parameters than the photo
// has values, so its baseline would be the photo itself (no bilinear PSNR to summarise).
TEST(BatchCli, LakeGraphSummaryHasLearnedAndBilinearNumbers) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out";
    fs::create_directories(in);
    write_crop(in / "tiny.png", 3, 32, 24);
    const Output run = fieldflow("batch " + std::string(FF_LAKE_GRAPH) + " --input " + q(in) + " --output " +
                                 q(out) + " --set steps=20 --set batch=1024 --set encoding=dense_grid --no-cache");
    ASSERT_EQ(run.code, 0) << run.text << read_text(out / "logs" / "tiny.log");
    const json summary = read_json(out / "summary.json");
    const json& image = summary["images"][0];
    const json own = read_json(out / "tiny" / "metrics.json");
    for (const char* field : {"psnr_learned", "psnr_bilinear", "ssim_learned", "ssim_bilinear", "steps",
                              "train_seconds", "model_bytes", "device"})
        EXPECT_EQ(image["metrics"][field], own[field]) << field;
    EXPECT_EQ(image["metrics"]["steps"], 20);
    EXPECT_GT(image["metrics"]["model_bytes"].get<double>(), 0);
    EXPECT_DOUBLE_EQ(image["metrics"]["psnr_gain"].get<double>(),
                     own["psnr_learned"].get<double>() - own["psnr_bilinear"].get<double>());
    EXPECT_EQ(image["report"], "tiny/report.html");
    EXPECT_TRUE(contains(read_text(out / "index.html"), "<a href=\"tiny/report.html\">tiny</a>"));
    // The log names where the report and the model are now, not the partial folder they were in.
    const std::string log = read_text(out / "logs" / "tiny.log");
    EXPECT_TRUE(contains(log, "report " + (out / "tiny" / "report.html").string())) << log;
    EXPECT_FALSE(contains(log, ".partial")) << log;
}
#endif

} // namespace
} // namespace fieldflow::batch_test
