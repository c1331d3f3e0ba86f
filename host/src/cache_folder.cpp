#include <fieldflow/host/cache_folder.hpp>

#include <algorithm>
#include <cstdio>

namespace fieldflow::host {

namespace fs = std::filesystem;

namespace {

// Temp files of the two writers: "<entry>.ffc.tmp.<pid>.<n>" (DiskCache) and "<name>.spv.tmp..."
// (the SPIR-V cache).
bool is_temporary(const fs::path& file) { return file.filename().string().find(".tmp") != std::string::npos; }

void add_file(CacheEntry& entry, const fs::directory_entry& file) {
    std::error_code ec;
    const uint64_t size = file.is_regular_file(ec) ? file.file_size(ec) : 0;
    if (!ec) entry.bytes += size;
    const fs::file_time_type when = file.last_write_time(ec);
    if (!ec) entry.last_written = std::max(entry.last_written, when);
}

// Every file under `root` (not following links) as one entry each.
void file_entries(const fs::path& root, std::vector<CacheEntry>& out) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (it->is_directory(ec)) continue;
        CacheEntry entry{it->path()};
        entry.temporary = is_temporary(it->path());
        add_file(entry, *it);
        out.push_back(std::move(entry));
    }
}

// Each folder directly under `root` as one entry, holding everything beneath it.
void folder_entries(const fs::path& root, std::vector<CacheEntry>& out) {
    std::error_code ec;
    for (const fs::directory_entry& child : fs::directory_iterator(root, ec)) {
        CacheEntry entry{child.path()};
        if (child.is_directory(ec) && !child.is_symlink(ec)) {
            // Its age is its newest file's: a folder's own time changes when files come and go.
            for (fs::recursive_directory_iterator it(child.path(), fs::directory_options::skip_permission_denied, ec), end;
                 !ec && it != end; it.increment(ec))
                if (!it->is_directory(ec)) add_file(entry, *it);
            if (entry.last_written == fs::file_time_type::min()) entry.last_written = child.last_write_time(ec);
        } else {
            add_file(entry, child);
        }
        out.push_back(std::move(entry));
    }
}

} // namespace

const std::vector<CacheKindInfo>& cache_kinds() {
    static const std::vector<CacheKindInfo> kinds = {
        {CacheKind::results, "results", "v1", "node results"},
        {CacheKind::state, "state", "state", "training state (resumable runs)"},
        {CacheKind::kernels, "kernels", "spirv", "compiled kernels (SPIR-V)"},
    };
    return kinds;
}

uint64_t CacheKindUsage::bytes() const {
    uint64_t total = 0;
    for (const CacheEntry& e : entries) total += e.bytes;
    return total;
}

std::vector<CacheKindUsage> scan_cache(const fs::path& dir) {
    std::vector<CacheKindUsage> usage;
    for (const CacheKindInfo& info : cache_kinds()) {
        CacheKindUsage u{info, {}};
        const fs::path root = dir / info.folder;
        if (info.kind == CacheKind::state) folder_entries(root, u.entries);
        else file_entries(root, u.entries);
        std::sort(u.entries.begin(), u.entries.end(),
                  [](const CacheEntry& a, const CacheEntry& b) { return a.path < b.path; });
        usage.push_back(std::move(u));
    }
    return usage;
}

uint64_t remove_cache_entries(const std::vector<CacheEntry>& entries, std::vector<std::string>& problems) {
    uint64_t freed = 0;
    for (const CacheEntry& e : entries) {
        std::error_code ec;
        fs::remove_all(e.path, ec);
        if (ec) problems.push_back(e.path.string() + ": " + ec.message());
        else freed += e.bytes;
    }
    return freed;
}

std::string byte_text(uint64_t bytes) {
    static const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1000 && unit < 4) value /= 1000, ++unit;
    char buf[32];
    std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return buf;
}

} // namespace fieldflow::host
