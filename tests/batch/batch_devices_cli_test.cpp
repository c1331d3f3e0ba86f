// The built `fieldflow batch` over several devices, on the CPU Vulkan driver: a device number this
// machine does not have fails every run on it for real, so its image is retried on the device that
// works and the device leaves the rotation; an image no device can run fails once per device, not
// for ever; a run killed part-way is the image's failure, not retried; `--devices all` takes what
// the Devices op lists; two device slots give each image the same result as one. A tiny training
// graph (a 16x12 image, 20 steps), so each run takes seconds.
#include "batch_test_support.hpp"

#include <csignal>
#include <chrono>
#include <set>
#include <thread>

namespace fieldflow::batch_test {
namespace {

using nlohmann::json;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// The pid of a running process whose command line holds every one of `parts`; 0 if none.
pid_t process_with(const std::vector<std::string>& parts) {
    for (const auto& e : fs::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string command = read_text(e.path() / "cmdline");
        if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return contains(command, p); }))
            return pid_t(std::stol(name));
    }
    return 0;
}

// A run killed part-way (here by the test; the OOM killer or a crash in the wild) names no cause:
// the image fails as without --devices, is not retried elsewhere, and no device leaves the
// rotation.
TEST(BatchDevicesCli, ARunKilledPartWayIsTheImagesFailureNotTheDevices) {
    TempDir dir;
    const fs::path in = dir / "in", out = dir / "out", graph = dir / "sleepy.yaml";
    fs::create_directories(in);
    write_crop(in / "a.png", 1, 16, 12);
    write_text(graph, R"(fieldflow: 1
vars: {input: ~, output: ~, stem: ~}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  wait: {op: Sleep, inputs: {image: image}, params: {ms: 60000, tag: "${stem}"}}
  save: {op: WriteImage, inputs: {image: wait}, params: {path: "${output}/image.png"}}
)");
    const pid_t batch = start_fieldflow({"batch", graph.string(), "--input", in.string(), "--output", out.string(),
                                         "--devices", "0,1", "--no-cache", "--plugin", FF_TEST_PLUGIN},
                                        dir / "batch.log");
    // The image's run, once it has started (its command line names its partial folder).
    pid_t child = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!child && std::chrono::steady_clock::now() < deadline) {
        child = process_with({"run", "stem=a", (out / ".partial").string()});
        if (!child) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_NE(child, 0) << read_text(dir / "batch.log");
    ::kill(child, SIGKILL);
    EXPECT_EQ(wait_exit(batch), 1) << read_text(dir / "batch.log");
    const json summary = read_json(out / "summary.json");
    const json& image = summary["images"][0];
    EXPECT_EQ(image["status"], "failed");
    EXPECT_TRUE(contains(image["error"], "killed by signal 9")) << image.dump();
    EXPECT_TRUE(image["retried_after"].empty()) << image.dump();
    EXPECT_EQ(image["ran_on"], "0");
    EXPECT_TRUE(summary["devices_taken_out"].empty()) << summary.dump();
}

#ifdef FF_LAKE_GRAPH // the neural plugin is part of the build

fs::path write_tiny_graph(const fs::path& dir) {
    const fs::path graph = dir / "tiny.yaml";
    write_text(graph, R"(fieldflow: 1
vars: {input: ~, output: ~}
nodes:
  image: {op: ReadImage, params: {path: "${input}"}}
  train: {op: Train, inputs: {image: image}, params: {steps: 20, batch: 256, seed: 7}}
  learned: {op: Infer, inputs: {model: train.model, like: image}}
  metrics: {op: Metrics, inputs: {reference: image, image: learned}}
  save_metrics: {op: WriteJson, inputs: {json: metrics}, params: {path: "${output}/metrics.json"}}
  save_learned: {op: WriteImage, inputs: {image: learned}, params: {path: "${output}/learned.png"}}
)");
    return graph;
}

fs::path tiny_inputs(const fs::path& dir, int count) {
    const fs::path in = dir / "in";
    fs::create_directories(in);
    for (int i = 0; i < count; ++i) write_crop(in / (std::string(1, char('a' + i)) + ".png"), i, 16, 12);
    return in;
}

std::map<std::string, json> images_by_stem(const json& summary) {
    std::map<std::string, json> out;
    for (const json& image : summary["images"]) out[image["stem"].get<std::string>()] = image;
    return out;
}

TEST(BatchDevicesCli, AMissingDeviceFailsOnlyItsImageWhichRunsOnTheOther) {
    TempDir dir;
    const fs::path in = tiny_inputs(dir.path(), 3), out = dir / "out";
    write_text(in / "z_notes.png", "this is text, not a PNG\n"); // last in the list: never on device 9
    const Output run = fieldflow("batch " + q(write_tiny_graph(dir.path())) + " --input " + q(in) +
                                 " --output " + q(out) + " --devices 0,9 --no-cache");
    EXPECT_EQ(run.code, 1) << run.text; // the text file fails; every photo is done
    const json summary = read_json(out / "summary.json");
    auto images = images_by_stem(summary);
    std::vector<std::string> retried;
    for (const char* stem : {"a", "b", "c"}) {
        const json& image = images[stem];
        EXPECT_EQ(image["status"], "done") << image.dump();
        EXPECT_EQ(image["ran_on"], "0") << image.dump();
        if (image["retried_after"].empty()) continue;
        retried.push_back(stem);
        ASSERT_EQ(image["retried_after"].size(), 1u) << image.dump();
        const json& attempt = image["retried_after"][0];
        EXPECT_EQ(attempt["device"], "9");
        EXPECT_TRUE(contains(attempt["error"], "cannot open compute device '9'")) << attempt.dump();
        // The failed run's log is kept beside the image's own.
        EXPECT_EQ(attempt["log"], "logs/" + std::string(stem) + "@9.log");
        EXPECT_TRUE(contains(read_text(out / attempt["log"].get<std::string>()), "device index 9 out of range"));
        EXPECT_TRUE(contains(run.text, "retried " + std::string(stem) + ": failed on device 9, then done on device 0"))
            << run.text;
    }
    // The second image went to device 9 and failed there; the device then left the rotation, so
    // no other image was sent to it.
    EXPECT_EQ(retried, std::vector<std::string>{"b"});
    ASSERT_EQ(summary["devices_taken_out"].size(), 1u) << summary.dump();
    EXPECT_EQ(summary["devices_taken_out"][0]["device"], "9");
    EXPECT_TRUE(contains(run.text, "device 9 taken out of the rotation: node 'train' failed: cannot open compute "
                                   "device '9'")) << run.text;
    // The bad image is the image's fault: failed once, not retried elsewhere.
    const json& bad = images["z_notes"];
    EXPECT_EQ(bad["status"], "failed");
    EXPECT_TRUE(bad["retried_after"].empty()) << bad.dump();
    EXPECT_FALSE(fs::exists(out / "logs" / "z_notes@9.log"));
    EXPECT_TRUE(contains(read_text(out / "summary.csv"), ",0,9\n")) << read_text(out / "summary.csv"); // ran_on, retried_on
    EXPECT_TRUE(contains(read_text(out / "index.html"), "Retried b: failed on device 9, then done on device 0."));
}

TEST(BatchDevicesCli, WhenEveryDeviceFailsEachImageFailsOnceAndTheBatchEnds) {
    TempDir dir;
    const fs::path in = tiny_inputs(dir.path(), 3), out = dir / "out";
    const Output run = fieldflow("batch " + q(write_tiny_graph(dir.path())) + " --input " + q(in) +
                                 " --output " + q(out) + " --devices 8,9 --no-cache");
    EXPECT_EQ(run.code, 1) << run.text;
    const json summary = read_json(out / "summary.json");
    std::set<std::string> out_devices;
    for (const json& d : summary["devices_taken_out"]) out_devices.insert(d["device"].get<std::string>());
    EXPECT_EQ(out_devices, (std::set<std::string>{"8", "9"})) << summary.dump();
    bool some_never_ran = false;
    for (const json& image : summary["images"]) {
        EXPECT_EQ(image["status"], "failed") << image.dump();
        // Each device at most once per image.
        std::multiset<std::string> tried;
        for (const json& a : image["retried_after"]) tried.insert(a["device"].get<std::string>());
        for (const std::string& d : tried) EXPECT_EQ(tried.count(d), 1u) << image.dump();
        const std::string error = image["error"];
        some_never_ran |= contains(error, "no device of --devices left to run it on; device ");
        EXPECT_TRUE(contains(error, "cannot open compute device")) << error;
    }
    EXPECT_TRUE(some_never_ran) << summary.dump(); // the third image finds no device left
}

// `--devices all` takes what the Devices op lists: here (CI) the CPU driver alone, which it says.
TEST(BatchDevicesCli, AllTakesTheDevicesTheEngineListsAndSaysWhat) {
    TempDir dir;
    const fs::path listing = dir / "devices.yaml";
    write_text(listing, R"(fieldflow: 1
nodes:
  devices: {op: Devices}
  save: {op: WriteJson, inputs: {json: devices}, params: {path: ")" + (dir / "devices.json").string() + R"("}}
)");
    const Output listed = fieldflow("run " + q(listing) + " --no-cache -q");
    ASSERT_EQ(listed.code, 0) << listed.text;
    const json devices = read_json(dir / "devices.json")["devices"];
    ASSERT_FALSE(devices.empty()) << "no Vulkan device here";
    std::vector<std::string> gpus;
    for (const json& d : devices)
        if (d["usable"] && d["type"] == "discrete") gpus.push_back(std::to_string(d["index"].get<int>()));

    const fs::path in = tiny_inputs(dir.path(), 1), out = dir / "out";
    const Output run = fieldflow("batch " + q(write_tiny_graph(dir.path())) + " --input " + q(in) +
                                 " --output " + q(out) + " --devices all --no-cache");
    ASSERT_EQ(run.code, 0) << run.text;
    const json image = read_json(out / "summary.json")["images"][0];
    if (gpus.empty() && devices.size() == 1 && devices[0]["type"] == "cpu") {
        EXPECT_TRUE(contains(run.text, "batch: --devices all: no GPU found, only the CPU driver 0 (" +
                                           devices[0]["name"].get<std::string>() + "): running on cpu"))
            << run.text;
        EXPECT_TRUE(contains(run.text, "devices cpu")) << run.text;
        EXPECT_EQ(image["ran_on"], "cpu");
    } else if (!gpus.empty()) {
        EXPECT_TRUE(contains(run.text, "batch: --devices all: " + std::to_string(gpus.size()) + " GPU")) << run.text;
        EXPECT_EQ(image["ran_on"], gpus.front());
    }
    EXPECT_EQ(image["status"], "done");
}

TEST(BatchDevicesCli, TwoDeviceSlotsGiveTheSameResultsAsOne) {
    TempDir dir;
    const fs::path in = tiny_inputs(dir.path(), 2), graph = write_tiny_graph(dir.path());
    // Device 0 and cpu: two slots (the CPU driver twice here), two images in flight.
    const Output two = fieldflow("batch " + q(graph) + " --input " + q(in) + " --output " + q(dir / "two") +
                                 " --devices 0,cpu --no-cache");
    ASSERT_EQ(two.code, 0) << two.text;
    const Output one = fieldflow("batch " + q(graph) + " --input " + q(in) + " --output " + q(dir / "one") +
                                 " --devices 0 --no-cache");
    ASSERT_EQ(one.code, 0) << one.text;
    std::set<std::string> slots;
    const json summary = read_json(dir / "two" / "summary.json");
    for (const json& image : summary["images"]) slots.insert(image["ran_on"].get<std::string>());
    EXPECT_EQ(slots, (std::set<std::string>{"0", "cpu"})); // both slots were used
    for (const char* stem : {"a", "b"}) {
        const fs::path a = dir / "two" / stem, b = dir / "one" / stem;
        EXPECT_EQ(read_text(a / "metrics.json"), read_text(b / "metrics.json")) << stem;
        const std::string learned = read_text(a / "learned.png");
        EXPECT_FALSE(learned.empty());
        EXPECT_EQ(learned, read_text(b / "learned.png")) << stem;
    }
}

#endif

} // namespace
} // namespace fieldflow::batch_test
