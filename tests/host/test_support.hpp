// Shared helpers for the host tests: the C test plugin, graphs from text, temp folders.
#pragma once

#include <fieldflow/host/op_registry.hpp>
#include <fieldflow/host/plugin_loader.hpp>
#include <fieldflow/host/validate.hpp>

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fieldflow::host::test {

// A registry holding the plain-C test plugin's ops, loaded through the ABI.
inline OpRegistry test_registry() {
    OpRegistry registry;
    std::string error = load_plugin_file(FF_TEST_PLUGIN, registry);
    EXPECT_EQ(error, "");
    return registry;
}

// How often an op of the test plugin executed (the plugin counts, not the host).
inline int plugin_runs(const char* op) {
    void* handle = dlopen(FF_TEST_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(handle, nullptr);
    auto fn = reinterpret_cast<int (*)(const char*)>(dlsym(handle, "ff_test_runs"));
    EXPECT_NE(fn, nullptr);
    int runs = fn ? fn(op) : -1;
    dlclose(handle); // drops the reference RTLD_NOLOAD added
    return runs;
}

// What the test plugin's Warm op recorded so far: ";<tag>@<device>" for each prepare, ";ran:<tag>"
// and ";released:<tag>" (tests/host/plugins/test_ops.c).
inline std::string warm_records() {
    void* handle = dlopen(FF_TEST_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(handle, nullptr);
    auto fn = reinterpret_cast<const char* (*)()>(dlsym(handle, "ff_test_warm_records"));
    EXPECT_NE(fn, nullptr);
    std::string records = fn ? fn() : "";
    dlclose(handle);
    return records;
}

// Validates `text`; fails the test (printing the errors) if it is not a valid graph.
inline Graph valid_graph(const std::string& text, const OpRegistry& registry,
                         const VarOverrides& sets = {}) {
    Diagnostics diags("test.yaml");
    auto graph = load_graph_text(text, sets, registry, diags);
    EXPECT_TRUE(graph.has_value()) << diags.format();
    return graph ? std::move(*graph) : Graph{};
}

// The formatted errors for `text` (empty when it is valid).
inline std::string graph_errors(const std::string& text, const OpRegistry& registry,
                                const VarOverrides& sets = {}) {
    Diagnostics diags("test.yaml");
    load_graph_text(text, sets, registry, diags);
    return diags.format();
}

inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// A fresh folder under the system temp folder, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        static int counter = 0;
        path_ = std::filesystem::temp_directory_path() /
                ("ff-host-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

} // namespace fieldflow::host::test
