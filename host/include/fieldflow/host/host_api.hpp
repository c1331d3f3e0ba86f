// The host side of the plugin ABI: the ff_host_api table and the ff_context each node execution
// (or validation) receives.
#pragma once

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/value.hpp>
#include <fieldflow/plugin.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

namespace fieldflow::host {

// Run-wide services a node reaches through the host API.
struct RunServices {
    std::string device = "auto";
    const std::atomic<bool>* cancel = nullptr; // set on SIGINT/SIGTERM
    std::function<void(const std::string& node, ff_log_level, const std::string& message)> log;
    std::function<void(const std::string& node, uint64_t done, uint64_t total,
                       const std::string& detail)> progress;
};

const ff_host_api* host_api();

} // namespace fieldflow::host

// One execution (or validation) of one node. Defined in the global namespace, where plugin.h
// declares it; opaque to plugins.
struct ff_context {
    const fieldflow::host::PlannedNode* node = nullptr;
    const fieldflow::host::RunServices* services = nullptr; // NULL while validating
    bool validating = false; // in validate() or prepare(): no inputs, outputs, state folder or side files

    std::map<std::string, fieldflow::host::ValuePtr> inputs; // connected inputs by port
    std::map<std::string, std::shared_ptr<fieldflow::host::Value>> outputs; // written so far

    // The node's cache key and the run's disk cache, for state_dir (no disk cache: no folder).
    fieldflow::host::Hash128 key;
    const fieldflow::host::DiskCache* disk = nullptr;
    std::string state_dir; // created by the first state_dir call; "" until then

    // Side files reported through side_file (ABI 1.2): param -> the paths written under it.
    std::map<std::string, std::set<std::string>> side_files;

    std::string error;       // from set_error / set_error_param
    std::string error_param; // the param set_error_param named
    std::vector<std::string> misuse; // API misuse by the plugin (wrong port, kind, ...)
    // What the op logged in validate(): notes (an estimate of its work) and warnings, which the
    // graph keeps at the node's position (Graph::notes, Graph::warnings).
    std::vector<std::pair<ff_log_level, std::string>> validate_log;
};
