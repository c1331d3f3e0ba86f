// Result caching. A node's key hashes its op (name, version, plugin name and version), its param
// values and the keys of the values on its inputs, as ComfyUI keys its cache by input signature:
// changing a param changes that node's key and its dependents', never an upstream one.
#pragma once

#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/hash.hpp>
#include <fieldflow/host/value.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fieldflow::host {

// Keys of the values on a node's connected inputs: (input port, key of the value).
using InputKeys = std::vector<std::pair<std::string, Hash128>>;

Hash128 node_key(const PlannedNode& node, const InputKeys& inputs);

// The key of one output value. For ops that read the outside world it is the content hash
// instead (see ff_op_flags), so an unchanged file keeps its dependents' keys.
Hash128 output_key(const Hash128& node_key, const std::string& port);

// Results of pure ops kept in memory for the life of the process (shared by runs in one process).
class MemoryCache {
public:
    std::optional<OutputMap> find(const Hash128& key) const;
    void store(const Hash128& key, const OutputMap& outputs);
    size_t size() const;

private:
    mutable std::mutex mutex_;
    std::map<Hash128, OutputMap> entries_;
};

// Results of FF_OP_CACHE_ON_DISK ops, one file per node key. Written atomically (temp file +
// rename); read defensively: a truncated or corrupt entry is reported as a warning and treated
// as a miss, never trusted and never a crash.
// Points the engine's SPIR-V cache at <cache_dir>/spirv, or turns it off for "" (and for a folder
// that is not and cannot become a marked cache folder, see claim_cache_folder): through
// $FIELDFLOW_SPIRV_CACHE_DIR, which the engine reads when it compiles shaders, so --cache and
// --no-cache govern every cache while the engine knows nothing of the host. Call before the run
// starts its threads (setenv is not thread-safe).
void use_shader_cache(const std::string& cache_dir);

class DiskCache {
public:
    explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}

    // $FIELDFLOW_CACHE_DIR, else $XDG_CACHE_HOME/fieldflow, else ~/.cache/fieldflow; "" if none.
    static std::string default_dir();

    // nullopt on a miss; `warning` says why an existing entry was not usable.
    std::optional<OutputMap> load(const Hash128& key, std::string& warning) const;
    // false (with `warning`) if the entry could not be written; the run goes on without it.
    bool store(const Hash128& key, const OutputMap& outputs, std::string& warning) const;

    std::string entry_path(const Hash128& key) const;
    const std::string& dir() const { return dir_; }

    // The private state folder of node key `key` (ff_host_api::state_dir): <dir>/state/<key hex>.
    // Not created here.
    std::string state_path(const Hash128& key) const;
    // Removes that folder and everything in it, if it exists; false (with `warning`) if it could
    // not be removed.
    bool remove_state(const Hash128& key, std::string& warning) const;

private:
    std::string dir_;
};

} // namespace fieldflow::host
