// The pieces of `fieldflow batch` without running anything: the file list and its stems, shards,
// the manifest (including a line cut short by a crash), the summary files and the hashes.
#include "batch_test_support.hpp"

#include <fieldflow/host/batch/batch_runner.hpp>
#include <fieldflow/host/batch/child_process.hpp>
#include <fieldflow/host/batch/inputs.hpp>
#include <fieldflow/host/batch/manifest.hpp>
#include <fieldflow/host/batch/summary.hpp>

#include <chrono>
#include <csignal>
#include <set>
#include <thread>

namespace fieldflow::batch_test {
namespace {

using namespace fieldflow::host::batch;

std::vector<std::string> stems_of(const std::vector<BatchInput>& inputs) {
    std::vector<std::string> stems;
    for (const BatchInput& in : inputs) stems.push_back(in.stem);
    return stems;
}

TEST(BatchInputs, DefaultSelectionTakesImageExtensionsSortedAndSkipsTheRest) {
    TempDir dir;
    for (const char* name : {"b.PNG", "a.jpg", "c.tiff", "notes.txt", ".hidden.png", "README"})
        write_text(dir / name, "x");
    fs::create_directories(dir / "sub");
    write_text(dir / "sub" / "d.png", "x");
    const auto inputs = list_batch_inputs(dir.path(), "");
    ASSERT_EQ(inputs.size(), 3u);
    EXPECT_EQ(inputs[0].relative, "a.jpg");
    EXPECT_EQ(inputs[1].relative, "b.PNG");
    EXPECT_EQ(inputs[2].relative, "c.tiff");
    EXPECT_EQ(stems_of(inputs), (std::vector<std::string>{"a", "b", "c"}));
    for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(inputs[i].index, i);
    EXPECT_EQ(inputs[0].path, dir.path() / "a.jpg");
}

TEST(BatchInputs, GlobWithSlashSearchesSubfoldersButNotTheOutput) {
    TempDir dir;
    fs::create_directories(dir / "x" / "y");
    fs::create_directories(dir / "out" / "img");
    write_text(dir / "top.jpg", "x");
    write_text(dir / "x" / "one.jpg", "x");
    write_text(dir / "x" / "y" / "two.jpg", "x");
    write_text(dir / "x" / "y" / "two.png", "x");
    write_text(dir / "out" / "img" / "old.jpg", "x");
    const auto names = list_batch_inputs(dir.path(), "*.jpg");
    ASSERT_EQ(names.size(), 1u);
    EXPECT_EQ(names[0].relative, "top.jpg");
    const auto deep = list_batch_inputs(dir.path(), "*/*.jpg", dir / "out");
    ASSERT_EQ(deep.size(), 2u);
    EXPECT_EQ(deep[0].relative, "x/one.jpg");
    EXPECT_EQ(deep[1].relative, "x/y/two.jpg");
    EXPECT_EQ(stems_of(deep), (std::vector<std::string>{"x_one", "x_y_two"}));
}

TEST(BatchInputs, OutputAndInputFoldersMayNotContainEachOther) {
    TempDir dir;
    fs::create_directories(dir / "photos" / "sub");
    fs::create_directories(dir / "results");
    EXPECT_EQ(folder_overlap(dir / "photos", dir / "results"), std::nullopt);
    EXPECT_EQ(folder_overlap(dir / "photos", dir / "photos2"), std::nullopt); // a prefix is not a parent

    const auto same = folder_overlap(dir / "photos", dir / "photos" / "sub" / ".." / "");
    ASSERT_TRUE(same);
    EXPECT_TRUE(same->find("are the same folder") != std::string::npos) << *same;
    const auto out_in = folder_overlap(dir / "photos", dir / "photos" / "new" / "out"); // not there yet
    ASSERT_TRUE(out_in);
    EXPECT_TRUE(out_in->find("is inside --input") != std::string::npos) << *out_in;
    const auto in_out = folder_overlap(dir / "results" / "x", dir / "results");
    ASSERT_TRUE(in_out);
    EXPECT_TRUE(in_out->find("--input '" + (dir / "results" / "x").string() + "' is inside --output") !=
                std::string::npos) << *in_out;

    // A symbolic link to a folder is that folder.
    fs::create_directory_symlink(dir / "photos", dir / "link");
    const auto through_link = folder_overlap(dir / "link", dir / "photos" / "out");
    ASSERT_TRUE(through_link);
    EXPECT_TRUE(through_link->find("is inside --input") != std::string::npos) << *through_link;
}

TEST(BatchInputs, MissingFolderIsAnError) {
    EXPECT_THROW(list_batch_inputs("/nonexistent/folder/for/batch", ""), std::runtime_error);
}

TEST(BatchInputs, StemsAreUniqueSafeAndAvoidTheBatchsOwnNames) {
    std::vector<BatchInput> inputs;
    for (const char* rel : {"a.jpg", "a.png", "A.tif", "logs.png", "my photo (1).jpg", ".x.png",
                            "summary.json.png", "sub/a.jpg", "a_jpg.bmp"})
        inputs.push_back({rel, rel, "", inputs.size()});
    assign_stems(inputs);
    const auto stems = stems_of(inputs);
    EXPECT_EQ(stems[0], "a_jpg");
    EXPECT_EQ(stems[1], "a_png");
    EXPECT_EQ(stems[2], "A_tif"); // clashes with "a" on a case-insensitive filesystem
    EXPECT_EQ(stems[3], "logs-2");
    EXPECT_EQ(stems[4], "my_photo__1_");
    EXPECT_EQ(stems[5], "_x");
    EXPECT_EQ(stems[6], "summary.json-2");
    EXPECT_EQ(stems[7], "sub_a");
    EXPECT_EQ(stems[8], "a_jpg-2"); // "a_jpg" was taken by a.jpg
    std::set<std::string> lower;
    for (std::string s : stems) {
        for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
        EXPECT_TRUE(lower.insert(s).second) << s;
        EXPECT_EQ(s.find('/'), std::string::npos);
        EXPECT_NE(s.front(), '.');
    }
}

TEST(BatchShards, ParseAcceptsOnlyIndexBelowCount) {
    auto s = parse_shard("2/5");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->index, 2u);
    EXPECT_EQ(s->count, 5u);
    EXPECT_EQ(s->text(), "2/5");
    for (const char* bad : {"", "3", "3/3", "1/0", "-1/3", "a/3", "1/", "/3", "1/3/4", "1 /3"})
        EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(BatchShards, ShardsPartitionTheListExactly) {
    std::vector<BatchInput> all;
    for (size_t i = 0; i < 10; ++i) all.push_back({"f", "f" + std::to_string(i), "s" + std::to_string(i), i});
    std::multiset<std::string> seen;
    for (unsigned k = 0; k < 3; ++k) {
        const auto part = select_shard(all, Shard{k, 3});
        EXPECT_EQ(part.size(), k == 0 ? 4u : 3u);
        for (const BatchInput& in : part) {
            EXPECT_EQ(in.index % 3, k);
            seen.insert(in.stem);
        }
    }
    EXPECT_EQ(seen.size(), all.size());
    for (const BatchInput& in : all) EXPECT_EQ(seen.count(in.stem), 1u);
}

ImageResult sample(const std::string& stem, const std::string& status, double psnr) {
    ImageResult r;
    r.stem = stem;
    r.input = "/in/" + stem + ".png";
    r.status = status;
    r.input_hash = "11";
    r.graph_hash = "22";
    r.seconds = 1.5;
    if (status == kStatusDone) {
        r.folder = stem;
        r.metrics.psnr_learned = psnr + 3.0;
        r.metrics.psnr_bilinear = psnr;
        r.metrics.ssim_learned = 0.9;
        r.metrics.steps = 2000;
        r.metrics.model_bytes = 12345;
        r.metrics.device = "llvmpipe";
    } else {
        r.error = "node 'image' failed: \"bad\", really";
    }
    return r;
}

TEST(BatchManifest, LastLineWinsAndACutLineIsSkippedAndEnded) {
    TempDir dir;
    const fs::path file = dir / "manifest.jsonl";
    {
        ManifestWriter w(file);
        w.append(sample("a", kStatusFailed, 0));
        w.append(sample("b", kStatusDone, 20));
        w.append(sample("a", kStatusDone, 25));
    }
    // A crash in the middle of a line.
    write_text(file, read_text(file) + R"({"stem":"c","status":"do)");
    std::vector<std::string> warnings;
    auto records = read_manifest(file, warnings);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records["a"].status, kStatusDone);
    EXPECT_EQ(records["a"].metrics, sample("a", kStatusDone, 25).metrics);
    EXPECT_EQ(records["b"].metrics.psnr_gain(), 3.0);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0], "manifest.jsonl:4")) << warnings[0];
    {
        ManifestWriter w(file); // ends the cut line, so this record is on its own line
        w.append(sample("c", kStatusDone, 30));
    }
    warnings.clear();
    records = read_manifest(file, warnings);
    EXPECT_EQ(records.size(), 3u);
    EXPECT_EQ(records["c"].status, kStatusDone);
    EXPECT_EQ(warnings.size(), 1u); // still the old cut line
}

TEST(BatchManifest, MetricsFileReadsLakeAndBaselineFields) {
    TempDir dir;
    write_text(dir / "lake.json", R"({"psnr_learned": 30.5, "psnr_bilinear": 27.25, "ssim_learned": 0.9,
        "ssim_bilinear": 0.8, "steps": 2000, "train_seconds": 12.5, "model_bytes": 4096,
        "device": "NVIDIA H100"})");
    const ImageMetrics lake = read_metrics_file(dir / "lake.json");
    EXPECT_EQ(lake.psnr_learned, 30.5);
    EXPECT_EQ(lake.psnr_gain(), 3.25);
    EXPECT_EQ(lake.steps, 2000u);
    EXPECT_EQ(lake.model_bytes, 4096u);
    EXPECT_EQ(lake.train_seconds, 12.5);
    EXPECT_EQ(lake.device, "NVIDIA H100");
    EXPECT_FALSE(lake.psnr);
    write_text(dir / "base.json", R"({"psnr": 26.0, "ssim": 0.63, "mse": 0.002})");
    const ImageMetrics base = read_metrics_file(dir / "base.json");
    EXPECT_EQ(base.psnr, 26.0);
    EXPECT_EQ(base.ssim, 0.63);
    EXPECT_FALSE(base.psnr_gain());
    // An image identical to its reference: PSNR null (infinite), left empty, and no gain.
    write_text(dir / "same.json", R"({"psnr_learned": null, "learned_identical": true,
        "psnr_bilinear": 27.0, "ssim_learned": 1.0})");
    const ImageMetrics same = read_metrics_file(dir / "same.json");
    EXPECT_FALSE(same.psnr_learned);
    EXPECT_FALSE(same.psnr_gain());
    EXPECT_EQ(same.psnr_bilinear, 27.0);
    EXPECT_EQ(same.ssim_learned, 1.0);
    EXPECT_EQ(read_metrics_file(dir / "missing.json"), ImageMetrics{});
    write_text(dir / "bad.json", "[1, 2");
    EXPECT_THROW(read_metrics_file(dir / "bad.json"), std::runtime_error);
}

TEST(BatchSummary, WritesCsvJsonHtmlAndReadsJsonBack) {
    TempDir dir;
    std::vector<ImageResult> results = {sample("a", kStatusDone, 20), sample("b", kStatusFailed, 0),
                                        sample("c", kStatusDone, 30), sample("d", kStatusNotRun, 0)};
    results[2].report = "c/report.html";
    SummaryInfo info{"graphs/lake.yaml", "1/3", {}, true, {}};
    write_summary(dir.path(), results, info);

    const std::string csv = read_text(dir / "summary.csv");
    EXPECT_TRUE(contains(csv, "stem,status,input,psnr_learned,psnr_bilinear,psnr_gain,")) << csv;
    EXPECT_TRUE(contains(csv, "a,done,/in/a.png,23.0000,20.0000,3.0000,0.900000,")) << csv;
    EXPECT_TRUE(contains(csv, "\"node 'image' failed: \"\"bad\"\", really\"")) << csv; // quoted
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);

    const auto totals = summary_totals(results);
    EXPECT_EQ(totals.images, 4u);
    EXPECT_EQ(totals.done, 2u);
    EXPECT_EQ(totals.failed, 1u);
    EXPECT_EQ(totals.not_run, 1u);
    EXPECT_DOUBLE_EQ(*totals.psnr_bilinear, 25.0); // mean of the per-image PSNRs
    EXPECT_DOUBLE_EQ(*totals.psnr_gain, 3.0);

    const SummaryFile back = read_summary_json(dir / "summary.json");
    EXPECT_EQ(back.info.shard, "1/3");
    EXPECT_TRUE(back.info.interrupted);
    ASSERT_EQ(back.results.size(), 4u);
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(back.results[i].stem, results[i].stem);
        EXPECT_EQ(back.results[i].status, results[i].status);
        EXPECT_EQ(back.results[i].error, results[i].error);
        EXPECT_EQ(back.results[i].metrics, results[i].metrics);
    }
    const auto json = read_json(dir / "summary.json");
    EXPECT_EQ(json["totals"]["means"]["psnr_learned"].get<double>(), 28.0);

    const std::string html = read_text(dir / "index.html");
    EXPECT_TRUE(contains(html, "<a href=\"c/report.html\">c</a>")) << html;
    EXPECT_TRUE(contains(html, "<a href=\"a/\">a</a>"));
    EXPECT_TRUE(contains(html, "&quot;bad&quot;"));             // escaped
    EXPECT_TRUE(contains(html, "not the PSNR of the pooled error")); // says what the mean is
    EXPECT_TRUE(contains(html, "sortBy(2,true)"));                 // by PSNR gain (no picture column)
    EXPECT_FALSE(contains(html, "<th>picture</th>"));             // no image has a thumbnail
    EXPECT_FALSE(contains(html, "<img"));                          // no thumbnail.png files here
    // Nothing but the three files (temp files were renamed).
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 3);
}

TEST(BatchSummary, PageShowsOnlyTheColumnsTheGraphProduces) {
    TempDir dir;
    // A graph measuring only PSNR and SSIM (no training, no bilinear baseline).
    std::vector<ImageResult> results = {sample("a", kStatusDone, 0), sample("b", kStatusFailed, 0)};
    results[0].metrics = ImageMetrics{};
    results[0].metrics.psnr = 26.5;
    results[0].metrics.ssim = 0.75;
    results[1].metrics = ImageMetrics{};
    write_summary(dir.path(), results, SummaryInfo{"graphs/baseline.yaml", "", {}, false, {}});
    const std::string html = read_text(dir / "index.html");
    EXPECT_TRUE(contains(html, "<th>image</th><th>status</th><th>PSNR</th><th>SSIM</th><th>wall s</th>")) << html;
    for (const char* absent : {"PSNR gain", "PSNR bilinear", "SSIM learned", "<th>steps</th>", "model bytes"})
        EXPECT_FALSE(contains(html, absent)) << absent;
    EXPECT_TRUE(contains(html, "sortBy(2,true)")); // by PSNR, the first metric shown
}

TEST(BatchSummary, IndexShowsTheReportsThumbnailSortedWithTheGain) {
    TempDir dir;
    std::vector<ImageResult> results = {sample("a", kStatusDone, 20), sample("c", kStatusDone, 30)};
    results[0].folder = "a", results[1].folder = "c";
    fs::create_directories(dir / "c");
    write_text(dir / "c" / "thumbnail.png", "png");
    write_summary(dir.path(), results, SummaryInfo{"graphs/lake.yaml", "", {}, false, {}});
    const std::string html = read_text(dir / "index.html");
    EXPECT_TRUE(contains(html, "<td class=\"p\" data-v=")) << html;
    EXPECT_TRUE(contains(html, "<img src=\"c/thumbnail.png\" alt=\"c: learned, and its gain on bilinear\">")) << html;
    EXPECT_FALSE(contains(html, "a/thumbnail.png")); // a has no picture: no broken image
    EXPECT_TRUE(contains(html, "<th>picture</th><th>PSNR gain (dB)</th>"));
    EXPECT_TRUE(contains(html, "sortBy(3,true)")); // by PSNR gain, after the picture column
}

TEST(BatchSummary, ReadingSomethingElseSaysWhatIsWrong) {
    TempDir dir;
    write_text(dir / "summary.json", R"({"images": []})");
    try {
        read_summary_json(dir / "summary.json");
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "not a fieldflow batch summary")) << e.what();
    }
}

TEST(BatchHashes, FileAndGraphHashesChangeWithTheirContent) {
    TempDir dir;
    write_text(dir / "a", "one");
    write_text(dir / "b", "one");
    write_text(dir / "c", "two");
    EXPECT_EQ(hash_file(dir / "a"), hash_file(dir / "b"));
    EXPECT_NE(hash_file(dir / "a"), hash_file(dir / "c"));
    EXPECT_EQ(hash_file(dir / "a").size(), 32u);
    EXPECT_THROW(hash_file(dir / "missing"), std::runtime_error);
    const std::string g = "fieldflow: 1\n";
    EXPECT_EQ(hash_graph(g, {}), hash_graph(g, {}));
    EXPECT_NE(hash_graph(g, {}), hash_graph(g + " ", {}));
    EXPECT_NE(hash_graph(g, {{"steps", "100"}}), hash_graph(g, {{"steps", "200"}}));
    EXPECT_NE(hash_graph(g, {{"a", "b=c"}}), hash_graph(g, {{"a=b", "c"}}));
}

// A stop forwarded to an image the moment it is started ends it, every time: the batch's own
// interrupt handler, which the child inherits across fork, must never see (and swallow) it.
volatile std::sig_atomic_t g_batch_handler_ran = 0; // (in the child, where the stop is lost)
TEST(BatchChild, AStopSentAsItStartsIsNeverLost) {
    struct sigaction batch_like {}, previous {};
    batch_like.sa_handler = [](int) { g_batch_handler_ran = 1; };
    sigemptyset(&batch_like.sa_mask);
    ASSERT_EQ(::sigaction(SIGTERM, &batch_like, &previous), 0);
    TempDir dir;
    int lost = 0;
    for (int i = 0; i < 200 && lost == 0; ++i) {
        const pid_t pid = fieldflow::host::batch::spawn_child("/bin/sleep", {"30"}, dir / "child.log");
        fieldflow::host::batch::signal_child(pid, SIGTERM);
        std::optional<fieldflow::host::batch::ChildExit> exit;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!(exit = fieldflow::host::batch::poll_child(pid)) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (!exit) { // the stop was lost: the child sleeps on
            ++lost;
            fieldflow::host::batch::signal_child(pid, SIGKILL);
            while (!fieldflow::host::batch::poll_child(pid)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        EXPECT_TRUE(exit->signaled && exit->signal == SIGTERM) << exit->describe();
    }
    ::sigaction(SIGTERM, &previous, nullptr);
    EXPECT_EQ(lost, 0) << "a SIGTERM sent as the child started was lost";
}

} // namespace
} // namespace fieldflow::batch_test
