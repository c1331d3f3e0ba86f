// A test-only implementation of ff_host_api: runs one op's execute/validate the way the host
// does (params filled from the op's declared defaults, inputs as views, outputs allocated on
// request and each written at most once), without the graph loader or scheduler.
#pragma once

#include <fieldflow/plugin.h>

#include <opencv2/core.hpp>

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace ff::test {

struct Image {
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t channels = 0;
    std::vector<float> pixels;
    uint32_t bits = 0; // bits per sample of the source (ff_image.bits)
};

// CV_32FC3 RGB <-> Image (a copy either way).
Image image_from_mat(const cv::Mat& rgb);
cv::Mat mat_from_image(const Image& image);

using ParamValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                                std::vector<std::string>>;

// A plugin library opened with dlopen, as the host does.
class Plugin {
public:
    explicit Plugin(const std::string& path);
    ~Plugin();
    Plugin(const Plugin&) = delete;
    Plugin& operator=(const Plugin&) = delete;
    const ff_plugin_info& info() const { return *info_; }
    // The op named `name`; throws std::runtime_error if the plugin has none.
    const ff_op_decl& op(const std::string& name) const;
    void* handle() const { return handle_; }

private:
    void* handle_ = nullptr;
    const ff_plugin_info* info_ = nullptr;
};

// The core plugin built alongside the tests.
const Plugin& core_plugin();

class FakeRun {
public:
    explicit FakeRun(const ff_op_decl& op);

    FakeRun& input(const std::string& port, Image image);
    FakeRun& input(const std::string& port, const cv::Mat& rgb) { return input(port, image_from_mat(rgb)); }
    FakeRun& input_blob(const std::string& port, std::string bytes);
    FakeRun& param(const std::string& name, ParamValue value);
    FakeRun& param(const std::string& name, int value) { return param(name, ParamValue(int64_t(value))); }
    FakeRun& param(const std::string& name, double value) { return param(name, ParamValue(value)); }
    FakeRun& param(const std::string& name, bool value) { return param(name, ParamValue(value)); }
    FakeRun& param(const std::string& name, const char* value) { return param(name, ParamValue(std::string(value))); }
    FakeRun& cancel(bool on = true);
    // Called on each progress report with its detail; return true to raise the cancelled flag
    // (a test interrupts a node in the phase it names).
    FakeRun& on_progress(std::function<bool(uint64_t done, uint64_t total, const std::string& detail)> hook) {
        hook_ = std::move(hook);
        return *this;
    }

    // Runs the op. Like the host, an FF_OK with an output left unwritten is turned into a
    // failure naming the port.
    ff_status execute();
    ff_status validate();

    const Image& output_image(const std::string& port) const;
    cv::Mat output_mat(const std::string& port) const { return mat_from_image(output_image(port)); }
    std::string output_text(const std::string& port) const;
    bool has_output(const std::string& port) const;

    const std::string& error() const { return error_; }             // last set_error(_param)
    const std::string& error_param() const { return error_param_; } // param of set_error_param
    const std::vector<std::string>& logs() const { return logs_; }
    uint64_t progress_calls() const { return progress_calls_; }
    const std::vector<std::string>& progress_details() const { return progress_details_; }

private:
    friend struct HostCallbacks;
    struct Output {
        bool is_image = false;
        Image image;
        std::string blob;
    };
    const ff_op_decl& op_;
    std::map<std::string, Image> images_;
    std::map<std::string, std::string> blobs_;
    std::map<std::string, ParamValue> params_;
    std::map<std::string, Output> outputs_;
    std::string error_, error_param_;
    std::vector<std::string> logs_;
    uint64_t progress_calls_ = 0;
    std::vector<std::string> progress_details_;
    std::function<bool(uint64_t, uint64_t, const std::string&)> hook_;
    bool cancelled_ = false; // read and set on the node's thread only (never a worker's)
};

} // namespace ff::test
