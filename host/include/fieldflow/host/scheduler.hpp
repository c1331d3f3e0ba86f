// Runs a validated graph: nodes in dependency order, independent branches in parallel on a pool
// of worker threads, each output computed once and shared by its consumers; results reused from
// the memory and disk caches; a failed node skips its dependents while the rest go on.
#pragma once

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/hash.hpp>
#include <fieldflow/host/value.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

namespace fieldflow::host {

class RunLog;

enum class NodeStatus {
    NotRun,       // never started (the run was interrupted first)
    Ran,
    CachedMemory, // reused from this process's memory cache
    CachedDisk,   // read from the disk cache
    Failed,
    Skipped,      // an input failed or was skipped
    Cancelled,    // stopped early on an interrupt
};

const char* status_name(NodeStatus status); // "ran", "cached", ...

struct NodeResult {
    NodeStatus status = NodeStatus::NotRun;
    std::string message; // failure or skip reason
    Hash128 key;         // node key (zero if it never got one)
    std::map<std::string, Hash128> output_keys;
    OutputMap outputs;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point finished;
    double seconds = 0; // run time of the node (or of the cache read)
};

struct RunOptions {
    unsigned jobs = 0;                          // 0: hardware threads
    std::string device = "auto";
    MemoryCache* memory = nullptr;              // nullptr: no memory cache
    const DiskCache* disk = nullptr;            // nullptr: no disk cache (--no-cache)
    RunLog* log = nullptr;                      // nullptr: silent
    const std::atomic<bool>* cancel = nullptr;  // set by the interrupt handler
};

struct RunResult {
    std::vector<NodeResult> nodes; // indexed like Graph::nodes
    bool interrupted = false;
    double seconds = 0;
    bool any_failed() const;
    size_t count(NodeStatus status) const;
};

RunResult run_graph(const Graph& graph, const RunOptions& options);

} // namespace fieldflow::host
