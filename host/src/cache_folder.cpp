#include <fieldflow/host/cache_folder.hpp>

#include <fieldflow/host/regular_file.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <string_view>

namespace fieldflow::host {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMarkSignature = "Signature: 8a477f597d28d172789f06886806bc55";

bool all_of_class(std::string_view s, int (*is)(int)) {
    return std::all_of(s.begin(), s.end(), [is](char c) { return is(static_cast<unsigned char>(c)) != 0; });
}

bool is_key(std::string_view s) {
    return s.size() == 32 && all_of_class(s, [](int c) { return int(std::isdigit(c) || (c >= 'a' && c <= 'f')); });
}

// Temp files of the two writers: "<entry>.tmp.<pid>.<n>" (DiskCache and the SPIR-V cache).
// Returns the entry's name, or `name` itself when it has no such suffix.
std::string_view without_temp_suffix(std::string_view name, bool& temporary) {
    temporary = false;
    const size_t at = name.rfind(".tmp.");
    if (at == std::string_view::npos) return name;
    const std::string_view rest = name.substr(at + 5);
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size() ||
        !all_of_class(rest.substr(0, dot), ::isdigit) || !all_of_class(rest.substr(dot + 1), ::isdigit))
        return name;
    temporary = true;
    return name.substr(0, at);
}

// Whether `relative` (under the kind's folder) is a file fieldflow writes there.
bool entry_shaped(CacheKind kind, const fs::path& relative, bool& temporary) {
    const std::string folder = relative.parent_path().string(), name = relative.filename().string();
    const std::string_view entry = without_temp_suffix(name, temporary);
    if (kind == CacheKind::results)
        return entry.size() == 36 && entry.ends_with(".ffc") && is_key(entry.substr(0, 32)) &&
               folder == entry.substr(0, 2);
    if (kind == CacheKind::kernels) {
        const size_t dash = entry.rfind('-');
        return folder.empty() && dash != std::string_view::npos && dash > 0 && entry.ends_with(".spv") &&
               entry.size() == dash + 1 + 32 + 4 && is_key(entry.substr(dash + 1, 32));
    }
    return false;
}

void add_file(CacheEntry& entry, const fs::directory_entry& file) {
    std::error_code ec;
    const uint64_t size = file.is_regular_file(ec) ? file.file_size(ec) : 0;
    if (!ec) entry.bytes += size;
    const fs::file_time_type when = file.last_write_time(ec);
    if (!ec) entry.last_written = std::max(entry.last_written, when);
}

// Every entry-shaped file under `root` (not following links) as one entry each.
void file_entries(CacheKind kind, const fs::path& root, std::vector<CacheEntry>& out) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
        CacheEntry entry{it->path()};
        if (!entry_shaped(kind, it->path().lexically_relative(root), entry.temporary)) continue;
        add_file(entry, *it);
        out.push_back(std::move(entry));
    }
}

// Each folder directly under `root` named by a key, holding everything beneath it.
void folder_entries(const fs::path& root, std::vector<CacheEntry>& out) {
    std::error_code ec;
    for (const fs::directory_entry& child : fs::directory_iterator(root, ec)) {
        if (!child.is_directory(ec) || child.is_symlink(ec) || !is_key(child.path().filename().string())) continue;
        CacheEntry entry{child.path()};
        // Its age is its newest file's: a folder's own time changes when files come and go.
        for (fs::recursive_directory_iterator it(child.path(), fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec))
            if (!it->is_directory(ec)) add_file(entry, *it);
        if (entry.last_written == fs::file_time_type::min()) entry.last_written = child.last_write_time(ec);
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
        else file_entries(info.kind, root, u.entries);
        std::sort(u.entries.begin(), u.entries.end(),
                  [](const CacheEntry& a, const CacheEntry& b) { return a.path < b.path; });
        usage.push_back(std::move(u));
    }
    return usage;
}

uint64_t remove_cache_entries(const std::vector<CacheEntry>& entries, std::vector<std::string>& problems) {
    uint64_t freed = 0;
    std::set<fs::path> folders;
    for (const CacheEntry& e : entries) {
        std::error_code ec;
        fs::remove_all(e.path, ec);
        if (ec) problems.push_back(e.path.string() + ": " + ec.message());
        else freed += e.bytes;
        folders.insert(e.path.parent_path()); // v1/<2 hex>/, state/, spirv/
        if (e.path.parent_path().parent_path().filename() == "v1") folders.insert(e.path.parent_path().parent_path());
    }
    // Deepest first; remove() takes only an empty folder, so a user's file keeps its folder.
    for (auto it = folders.rbegin(); it != folders.rend(); ++it) {
        std::error_code ec;
        fs::remove(*it, ec);
    }
    return freed;
}

bool is_marked_cache(const fs::path& dir) {
    std::string text, error;
    if (read_regular_file((dir / kCacheMark).string(), text, error, 4096) != ReadStatus::ok) return false;
    return text.starts_with(kMarkSignature) && text.find("fieldflow") != std::string::npos;
}

std::string claim_cache_folder(const fs::path& dir) {
    if (is_marked_cache(dir)) return {};
    std::error_code ec;
    if (fs::exists(dir / kCacheMark, ec)) return "'" + (dir / kCacheMark).string() + "' is not fieldflow's";
    std::string other; // the first name, in byte order, that is not one of the cache's subfolders
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const bool ours = std::any_of(cache_kinds().begin(), cache_kinds().end(),
                                      [&](const CacheKindInfo& k) { return name == k.folder; });
        if (!ours && (other.empty() || name < other)) other = name;
    }
    if (!other.empty())
        return "'" + dir.string() + "' holds files that are not fieldflow's (e.g. '" + other +
               "') and is not marked as a cache folder";
    fs::create_directories(dir, ec);
    if (ec) return "cannot create the cache folder '" + dir.string() + "': " + ec.message();
    const fs::path temp = dir / (std::string(kCacheMark) + ".tmp");
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << kMarkSignature << "\n# This folder is fieldflow's cache (`fieldflow cache --help`): node results,\n"
            << "# training state and compiled kernels, all recomputed when needed.\n";
        if (!out.flush()) return "cannot write '" + (dir / kCacheMark).string() + "'";
    }
    fs::rename(temp, dir / kCacheMark, ec);
    if (ec) return "cannot write '" + (dir / kCacheMark).string() + "': " + ec.message();
    return {};
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
