// What a cache folder holds, for `fieldflow cache`: the three kinds of entry fieldflow writes
// there (graph-format.md, "Caches"), how much space each takes, and removing them. Only those
// kinds' own subfolders are ever touched, so a cache folder pointed at the wrong place (--cache
// ~) loses nothing else.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fieldflow::host {

enum class CacheKind { results, state, kernels };

struct CacheKindInfo {
    CacheKind kind;
    const char* name;    // "results": the word the command takes
    const char* folder;  // "v1": the subfolder of the cache folder
    const char* about;   // "node results" for people
};

const std::vector<CacheKindInfo>& cache_kinds();

// One entry: a results or kernel file, or a node's state folder (with everything in it).
struct CacheEntry {
    std::filesystem::path path;
    uint64_t bytes = 0;
    // The newest file in it; min() when it holds none (file_time_type{} is no "never": the
    // clock's epoch lies in the future with libstdc++).
    std::filesystem::file_time_type last_written = std::filesystem::file_time_type::min();
    bool temporary = false; // a writer's temp file (left by a killed process when old)
};

struct CacheKindUsage {
    CacheKindInfo info;
    std::vector<CacheEntry> entries;
    uint64_t bytes() const;
};

// The cache folder's own mark: CACHEDIR.TAG (the Cache Directory Tagging convention, so backup
// tools skip the folder), naming fieldflow. `cache clear` and `prune` work only in a marked folder.
constexpr const char* kCacheMark = "CACHEDIR.TAG";
bool is_marked_cache(const std::filesystem::path& dir);

// Makes `dir` a marked cache folder before anything is cached there: creates and marks it, or
// marks one that is empty or holds nothing but the cache's own subfolders (a cache folder of an
// earlier version). Returns "" when `dir` is (now) marked, else why it is not: a folder of the
// user's is never made a cache.
std::string claim_cache_folder(const std::filesystem::path& dir);

// What each kind holds under `dir` (missing subfolders are empty): only what has the shape of
// an entry fieldflow writes (results v1/<2 hex>/<key>.ffc, state folders state/<key>/, kernels
// spirv/<shader>-<key>.spv, and their writers' temporary files); anything else there is the
// user's, neither counted nor removed. Unreadable parts are skipped.
std::vector<CacheKindUsage> scan_cache(const std::filesystem::path& dir);

// Removes `entries`, then the subfolders of the kinds that are left empty; the paths that could
// not be removed, with why, go to `problems`. Returns the bytes freed.
uint64_t remove_cache_entries(const std::vector<CacheEntry>& entries, std::vector<std::string>& problems);

// "12.3 MB" (powers of 1000, as `du --si`).
std::string byte_text(uint64_t bytes);

} // namespace fieldflow::host
