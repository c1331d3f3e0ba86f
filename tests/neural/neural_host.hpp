// A test-only host for the neural plugin: loads the built plugin with dlopen and runs one op
// through the C ABI, as the real host does (params default to their declared values, outputs are
// allocated on request and written once), with hooks for progress and cancellation.
#pragma once

#include <fieldflow/plugin.h>

#include <opencv2/core.hpp>

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ff::test {

struct HostImage {
    uint32_t width = 0, height = 0, channels = 0;
    std::vector<float> pixels;
};

HostImage image_from_rgb(const cv::Mat& rgb);      // CV_32FC3 RGB
cv::Mat rgb_from_image(const HostImage& image);    // CV_32FC3 RGB copy

using Param = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>>;

class NeuralPlugin {
public:
    static const NeuralPlugin& instance(); // the plugin built with the tests (FF_NEURAL_PLUGIN)
    const ff_op_decl& op(const std::string& name) const;
    const ff_plugin_info& info() const { return *info_; }

private:
    explicit NeuralPlugin(const std::string& path);
    void* handle_ = nullptr;
    const ff_plugin_info* info_ = nullptr;
};

struct ProgressEvent {
    uint64_t done = 0, total = 0;
    std::string detail;
};

class OpRun {
public:
    explicit OpRun(const std::string& op_name);

    OpRun& image(const std::string& port, HostImage value);
    OpRun& image(const std::string& port, const cv::Mat& rgb) { return image(port, image_from_rgb(rgb)); }
    OpRun& blob(const std::string& port, std::vector<std::byte> bytes);
    OpRun& text(const std::string& port, const std::string& text);
    OpRun& param(const std::string& name, Param value);
    OpRun& param(const std::string& name, int value) { return param(name, Param(int64_t(value))); }
    OpRun& param(const std::string& name, const char* value) { return param(name, Param(std::string(value))); }
    OpRun& device(std::string selector) { device_ = std::move(selector); return *this; }
    // The folder state_dir gives the op (created on its first call); "" = none, as without a disk
    // cache.
    OpRun& state_dir(std::string folder) { state_dir_ = std::move(folder); return *this; }
    // Called on each progress report; return true to raise the cancelled flag.
    OpRun& on_progress(std::function<bool(const ProgressEvent&)> hook) { hook_ = std::move(hook); return *this; }

    ff_status execute();
    ff_status validate();

    bool has_output(const std::string& port) const { return images_out_.count(port) || blobs_out_.count(port); }
    const HostImage& output_image(const std::string& port) const;
    const std::vector<std::byte>& output_blob(const std::string& port) const;
    std::string output_text(const std::string& port) const;

    const std::string& error() const { return error_; }
    const std::string& error_param() const { return error_param_; }
    const std::vector<std::string>& logs() const { return logs_; }
    const std::vector<ProgressEvent>& progress() const { return progress_; }

private:
    friend struct Callbacks;
    const ff_param_decl* param_decl(const char* name) const;
    bool resolve(const char* name, Param& out) const; // set value or parsed default

    const ff_op_decl& op_;
    std::map<std::string, HostImage> images_in_;
    std::map<std::string, std::vector<std::byte>> blobs_in_;
    std::map<std::string, Param> params_;
    std::map<std::string, HostImage> images_out_;
    std::map<std::string, std::vector<std::byte>> blobs_out_;
    std::deque<std::string> strings_; // keeps returned C strings alive
    std::vector<std::string> logs_;
    std::vector<ProgressEvent> progress_;
    std::function<bool(const ProgressEvent&)> hook_;
    std::atomic<bool> cancelled_{false};
    std::string device_ = "cpu";
    std::string state_dir_;
    std::string error_, error_param_;
};

} // namespace ff::test
