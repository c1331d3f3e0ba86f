// The device pieces of `fieldflow batch` without running anything: which devices `--devices all`
// takes from a list, which failures of an image's run are its device's (and that the engine and
// the neural plugin still word them so), and the retries in the summary files.
#include "batch_test_support.hpp"

#include <fieldflow/host/batch/all_devices.hpp>
#include <fieldflow/host/batch/batch_runner.hpp>
#include <fieldflow/host/batch/child_process.hpp>
#include <fieldflow/host/batch/device_failure.hpp>
#include <fieldflow/host/batch/summary.hpp>

#include <stdexcept>

namespace fieldflow::batch_test {
namespace {

using namespace fieldflow::host::batch;

SeenDevice seen(uint32_t index, const std::string& name, const std::string& type, const std::string& missing = "") {
    return {index, name, type, missing.empty(), missing};
}

TEST(BatchAllDevices, TakesEveryDiscreteGpuElseOtherGpusElseTheCpuDriver) {
    const AllDevices two = choose_all_devices({seen(0, "llvmpipe", "cpu"), seen(1, "NVIDIA H100", "discrete"),
                                               seen(2, "Intel UHD", "integrated"), seen(3, "NVIDIA H100", "discrete"),
                                               seen(4, "Old GPU", "discrete", "shaderBufferFloat32AtomicAdd")});
    EXPECT_EQ(two.selectors, (std::vector<std::string>{"1", "3"}));
    EXPECT_EQ(two.text, "2 GPUs: 1 (NVIDIA H100), 3 (NVIDIA H100)");

    const AllDevices integrated = choose_all_devices({seen(0, "llvmpipe", "cpu"), seen(1, "Intel UHD", "integrated")});
    EXPECT_EQ(integrated.selectors, (std::vector<std::string>{"1"}));

    const AllDevices cpu = choose_all_devices({seen(0, "llvmpipe (LLVM 15.0.6, 256 bits)", "cpu")});
    EXPECT_EQ(cpu.selectors, (std::vector<std::string>{"cpu"}));
    EXPECT_EQ(cpu.text, "no GPU found, only the CPU driver 0 (llvmpipe (LLVM 15.0.6, 256 bits)): running on cpu");
}

TEST(BatchAllDevices, NoUsableDeviceSaysWhatEachLacks) {
    try {
        choose_all_devices({seen(0, "Old GPU", "discrete", "shaderBufferFloat32AtomicAdd")});
        FAIL() << "no usable device was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--devices all: no usable Vulkan device; 0 (Old GPU) lacks shaderBufferFloat32AtomicAdd");
    }
    EXPECT_THROW(choose_all_devices({}), std::runtime_error);
}

TEST(BatchAllDevices, ReadsTheDevicesOpsJsonAndRefusesAnythingElse) {
    const auto devices = devices_from_json(
        R"({"devices": [{"index": 0, "name": "llvmpipe", "type": "cpu", "usable": true, "missing": ""},
                        {"index": 1, "name": "Old", "type": "discrete", "usable": false, "missing": "a compute queue"}]})");
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[1].index, 1u);
    EXPECT_EQ(devices[1].type, "discrete");
    EXPECT_FALSE(devices[1].usable);
    EXPECT_EQ(devices[1].missing, "a compute queue");
    EXPECT_TRUE(devices_from_json(R"({"devices": []})").empty());
    for (const char* bad : {"[1, 2", "[]", R"({"devices": 3})", R"({"devices": [{"name": "no index"}]})"})
        EXPECT_THROW(devices_from_json(bad), std::runtime_error) << bad;
}

ChildExit exit_code(int code) {
    ChildExit e;
    e.code = code;
    return e;
}

TEST(BatchDeviceFaults, OnlyTheEnginesDeviceErrorsInANodeFailureCount) {
    const ChildExit failed = exit_code(1);
    EXPECT_EQ(device_fault_of(failed, "error: node 'train' failed: cannot open compute device '9': device "
                                      "index 9 out of range; devices:"),
              DeviceFault::unavailable);
    EXPECT_EQ(device_fault_of(failed, "error: node 'train' failed: the Vulkan device was lost (waiting for "
                                      "the training step)"),
              DeviceFault::lost);
    EXPECT_EQ(device_fault_of(failed, "error: node 'train' failed: out of device memory allocating 4096 bytes "
                                      "for 'grid' (VK_ERROR_OUT_OF_DEVICE_MEMORY)"),
              DeviceFault::memory);
    EXPECT_EQ(device_fault_of(failed, "error: node 'train' failed: training needs about 90 GiB of device "
                                      "memory, more than the 79 GiB free on 'NVIDIA H100'"),
              DeviceFault::memory);
    EXPECT_TRUE(takes_device_out(DeviceFault::unavailable));
    EXPECT_TRUE(takes_device_out(DeviceFault::lost));
    EXPECT_FALSE(takes_device_out(DeviceFault::memory)); // the image's size, not a broken device
    // The image's own faults, and anything that names no device fault.
    EXPECT_EQ(device_fault_of(failed, "error: node 'image' failed: cannot decode 'a.png': the file is corrupt"),
              DeviceFault::none);
    EXPECT_EQ(device_fault_of(failed, ""), DeviceFault::none);
    // Rejected before running (a node's own device param out of range fails on any device), and a
    // crash, which names no cause.
    EXPECT_EQ(device_fault_of(exit_code(2), "cannot open compute device '9'"), DeviceFault::none);
    ChildExit crashed;
    crashed.signaled = true;
    crashed.signal = 11;
    EXPECT_EQ(device_fault_of(crashed, "the Vulkan device was lost"), DeviceFault::none);
}

// The engine lists the devices on the lines after "cannot open compute device": they belong to
// the reason, and the lines before (the node table) do not.
TEST(BatchDeviceFaults, TheReasonKeepsTheLinesItsMessageGoesOnWith) {
    TempDir dir;
    write_text(dir / "run.log", "failed    train    0.4 s  cannot open compute device '9': device index 9 out of range; devices:\n"
                                "  0: llvmpipe (cpu)\n"
                                "5 nodes: 1 ran, 0 cached, 1 failed, 3 skipped in 0.5 s\n"
                                "error: node 'train' failed: cannot open compute device '9': device index 9 out of range; devices:\n"
                                "  0: llvmpipe (cpu)\n"
                                "  1: NVIDIA H100 (discrete)\n");
    EXPECT_EQ(failure_line_of(dir / "run.log"),
              "error: node 'train' failed: cannot open compute device '9': device index 9 out of range; devices: "
              "0: llvmpipe (cpu) 1: NVIDIA H100 (discrete)");
    write_text(dir / "plain.log", "error: node 'image' failed: cannot decode 'a.png'\n1 error\n");
    EXPECT_EQ(failure_line_of(dir / "plain.log"), "error: node 'image' failed: cannot decode 'a.png'");
}

// The batch recognises a device fault by the words the engine and the neural plugin use: if
// they change there, this fails, instead of the batch silently never retrying.
TEST(BatchDeviceFaults, ThePhrasesAreStillTheEnginesAndThePlugins) {
    const fs::path source = FF_SOURCE_DIR;
    const std::string plugin = read_text(source / "nodes/neural/device_cache.cpp");
    const std::string device = read_text(source / "kernels/src/vulkan/vk_device.cpp");
    const std::string memory = read_text(source / "kernels/src/field/training_memory.cpp");
    EXPECT_TRUE(contains(plugin, "\"cannot open compute device '\""));
    EXPECT_TRUE(contains(device, "\"the Vulkan device was lost (\""));
    EXPECT_TRUE(contains(device, "\"out of device memory (\""));
    EXPECT_TRUE(contains(device, "\"out of device memory allocating \""));
    EXPECT_TRUE(contains(memory, "\" of device memory, more than the \""));
}

// Image b, done on device 0 after its run on `device` failed with `error`.
ImageResult retried_b(const std::string& device, const std::string& error) {
    ImageResult r;
    r.stem = "b";
    r.status = kStatusDone;
    r.folder = "b";
    r.ran_on = "0";
    r.retried_after = {{device, error, "logs/b@" + device + ".log"}};
    return r;
}

TEST(BatchSummary, RetriesAndDevicesTakenOutAreInEverySummaryFile) {
    TempDir dir;
    const ImageResult retried = retried_b("9", "node 'train' failed: cannot open compute device '9' (exit code 1)");
    ImageResult plain;
    plain.stem = "a";
    plain.status = kStatusDone;
    plain.folder = "a";
    plain.ran_on = "0";
    SummaryInfo info;
    info.graph = "tiny.yaml";
    info.devices_out = {{"9", "node 'train' failed: cannot open compute device '9' (exit code 1)"}};
    write_summary(dir.path(), {plain, retried}, info);

    EXPECT_EQ(retry_story(retried), "failed on device 9, then done on device 0");
    EXPECT_EQ(retry_story(plain), "");
    const std::string csv = read_text(dir / "summary.csv");
    EXPECT_TRUE(contains(csv, ",error,ran_on,retried_on\n")) << csv;
    EXPECT_TRUE(contains(csv, ",0,9\n")) << csv;
    EXPECT_TRUE(contains(csv, ",0,\n")) << csv;

    const SummaryFile back = read_summary_json(dir / "summary.json");
    EXPECT_EQ(back.info.devices_out, info.devices_out);
    ASSERT_EQ(back.results.size(), 2u);
    EXPECT_EQ(back.results[1].ran_on, "0");
    EXPECT_EQ(back.results[1].retried_after, retried.retried_after);
    EXPECT_TRUE(back.results[0].retried_after.empty());

    const std::string html = read_text(dir / "index.html");
    EXPECT_TRUE(contains(html, "Device 9 was taken out of the rotation: node &#39;train&#39; failed")) << html;
    EXPECT_TRUE(contains(html, "Retried b: failed on device 9, then done on device 0.")) << html;
}

// A merge keeps each shard's devices taken out (naming the shard's folder, another machine's
// devices) and the retried images' kept logs, as links from the merged folder.
TEST(BatchSummary, AMergeKeepsTheShardsDevicesAndRetries) {
    TempDir dir;
    fs::create_directories(dir / "s0");
    fs::create_directories(dir / "s1");
    ImageResult retried = retried_b("1", "node 'train' failed: the Vulkan device was lost (exit code 1)");
    retried.shard = "0/2";
    SummaryInfo first;
    first.shard = "0/2";
    first.devices_out = {{"1", "node 'train' failed: the Vulkan device was lost (exit code 1)"}};
    write_summary(dir / "s0", {retried}, first);
    ImageResult plain;
    plain.stem = "a";
    plain.status = kStatusDone;
    plain.shard = "1/2";
    SummaryInfo second;
    second.shard = "1/2";
    write_summary(dir / "s1", {plain}, second);

    EXPECT_EQ(merge_batches({dir / "s0", dir / "s1"}, dir / "merged"), 0);
    const SummaryFile merged = read_summary_json(dir / "merged" / "summary.json");
    ASSERT_EQ(merged.info.devices_out.size(), 1u);
    EXPECT_EQ(merged.info.devices_out[0].first, "1");
    EXPECT_EQ(merged.info.devices_out[0].second,
              "node 'train' failed: the Vulkan device was lost (exit code 1) (in '" + (dir / "s0").string() + "')");
    ASSERT_EQ(merged.results.size(), 2u);
    const ImageResult& b = merged.results[0].stem == "b" ? merged.results[0] : merged.results[1];
    ASSERT_EQ(b.retried_after.size(), 1u);
    EXPECT_EQ(b.retried_after[0].log, "../s0/logs/b@1.log");
    EXPECT_EQ(b.ran_on, "0");
}

} // namespace
} // namespace fieldflow::batch_test
