// `fieldflow cache [list|size|clear|prune]`: what the cache folder holds, and removing it.
#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/cache_folder.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fieldflow::host {
namespace {

std::unique_ptr<CommandLine> cache_table() {
    auto cl = std::make_unique<CommandLine>(
        "cache", "fieldflow cache [list|size|clear|prune] [KIND]... [--cache DIR] [--older-than DAYS] [--json]",
        "Shows or removes what fieldflow keeps in its cache folder: node results (KIND results), "
        "the training state that lets an interrupted run resume (state) and compiled kernels "
        "(kernels). `list` (the default) shows each kind and every state folder with its age; "
        "`size` only the sizes; `clear` removes the KINDs named (default: all three); `prune` "
        "removes abandoned state: state folders and temporary files left by killed writers, last "
        "written more than --older-than days ago. Only a folder fieldflow marked as its cache "
        "(CACHEDIR.TAG) is cleared or pruned, and only the entries fieldflow writes there: other "
        "files, in those subfolders or beside them, are never touched. Everything removed is "
        "recomputed when needed.\n\n"
        "Examples:\n"
        "  fieldflow cache size\n"
        "  fieldflow cache prune --older-than 1\n"
        "  fieldflow cache clear kernels\n\n"
        "Exit code: 0 success, 1 something could not be removed, 2 usage.");
    add_positional(*cl, "action", "list, size, clear or prune");
    add_positional(*cl, "kinds", "results, state or kernels", -1);
    cl->options.add_options()
        ("cache", po::value<std::string>()->value_name("DIR"),
         "cache folder (default: $FIELDFLOW_CACHE_DIR, $XDG_CACHE_HOME/fieldflow or ~/.cache/fieldflow)")
        ("older-than", po::value<double>()->default_value(7.0)->value_name("DAYS"),
         "prune: what was last written more than this many days ago");
    add_json_option(*cl);
    return cl;
}

double age_days(fs::file_time_type when) {
    if (when == fs::file_time_type::min()) return 0;
    return std::chrono::duration<double>(fs::file_time_type::clock::now() - when).count() / 86400.0;
}

std::string age_text(double days) {
    char buf[32];
    if (days < 1.0 / 24) std::snprintf(buf, sizeof buf, "%.0f min ago", days * 1440);
    else if (days < 2) std::snprintf(buf, sizeof buf, "%.0f h ago", days * 24);
    else std::snprintf(buf, sizeof buf, "%.0f days ago", days);
    return buf;
}

nlohmann::json usage_json(const std::vector<CacheKindUsage>& usage, bool with_entries) {
    nlohmann::json kinds = nlohmann::json::array();
    for (const CacheKindUsage& u : usage) {
        nlohmann::json k = {{"kind", u.info.name}, {"folder", u.info.folder}, {"entries", u.entries.size()},
                            {"bytes", u.bytes()}};
        if (with_entries && u.info.kind == CacheKind::state) {
            nlohmann::json folders = nlohmann::json::array();
            for (const CacheEntry& e : u.entries)
                folders.push_back({{"path", e.path.string()}, {"bytes", e.bytes},
                                   {"age_days", age_days(e.last_written)}});
            k["folders"] = std::move(folders);
        }
        kinds.push_back(std::move(k));
    }
    return kinds;
}

void print_usage_table(const fs::path& dir, const std::vector<CacheKindUsage>& usage, bool with_entries) {
    uint64_t total = 0;
    std::printf("cache folder %s\n", dir.c_str());
    for (const CacheKindUsage& u : usage) {
        std::printf("  %-8s %-32s %6zu %-7s %10s\n", u.info.name, u.info.about, u.entries.size(),
                    u.info.kind == CacheKind::state ? "folders" : "files", byte_text(u.bytes()).c_str());
        total += u.bytes();
        if (!with_entries || u.info.kind != CacheKind::state) continue;
        for (const CacheEntry& e : u.entries)
            std::printf("    %s  %s, last written %s\n", e.path.filename().c_str(), byte_text(e.bytes).c_str(),
                        age_text(age_days(e.last_written)).c_str());
    }
    std::printf("  %-56s %10s\n", "total", byte_text(total).c_str());
}

// The entries an action removes: whole kinds (clear), or abandoned state and temp files (prune).
std::vector<CacheEntry> to_remove(const std::vector<CacheKindUsage>& usage,
                                  const std::vector<std::string>& kinds, bool prune, double days) {
    std::vector<CacheEntry> out;
    for (const CacheKindUsage& u : usage) {
        if (prune) {
            for (const CacheEntry& e : u.entries)
                if ((u.info.kind == CacheKind::state || e.temporary) && age_days(e.last_written) > days)
                    out.push_back(e);
        } else if (kinds.empty() || std::count(kinds.begin(), kinds.end(), u.info.name)) {
            out.insert(out.end(), u.entries.begin(), u.entries.end());
        }
    }
    return out;
}

int cache_main(CommandLine& cl, const std::vector<std::string>&) {
    const std::string action = cl.values.count("action") ? cl.values["action"].as<std::string>() : "list";
    if (action != "list" && action != "size" && action != "clear" && action != "prune")
        return cl.usage_error("unknown action '" + action + "': expected list, size, clear or prune");
    std::vector<std::string> kinds;
    if (cl.values.count("kinds")) kinds = cl.values["kinds"].as<std::vector<std::string>>();
    for (const std::string& k : kinds) {
        const auto& all = cache_kinds();
        if (std::none_of(all.begin(), all.end(), [&](const CacheKindInfo& i) { return k == i.name; }))
            return cl.usage_error("unknown cache kind '" + k + "': expected results, state or kernels");
    }
    if (!kinds.empty() && action != "clear")
        return cl.usage_error("only clear takes cache kinds (results, state, kernels)");
    const double days = cl.values["older-than"].as<double>();
    if (!(days >= 0)) return cl.usage_error("--older-than must be 0 or more days");
    const fs::path dir = cl.values.count("cache") ? cl.values["cache"].as<std::string>() : DiskCache::default_dir();
    if (dir.empty()) return cl.usage_error("no cache folder: give --cache DIR (or set FIELDFLOW_CACHE_DIR or HOME)");
    const bool json = cl.values.count("json") > 0;

    const std::vector<CacheKindUsage> usage = scan_cache(dir);
    if (action == "list" || action == "size") {
        if (json)
            std::printf("%s\n", nlohmann::json({{"folder", dir.string()}, {"kinds", usage_json(usage, action == "list")}})
                                    .dump(2).c_str());
        else print_usage_table(dir, usage, action == "list");
        return kExitOk;
    }

    // Only a folder fieldflow marked as its cache: a --cache pointed at the wrong folder removes
    // nothing, whatever its subfolders are called.
    std::error_code ec;
    if (fs::exists(dir, ec) && !is_marked_cache(dir)) {
        std::fprintf(stderr, "fieldflow cache: error: '%s' is not marked as a fieldflow cache folder (it has no %s "
                             "written by fieldflow), so nothing was removed; fieldflow marks a cache folder when it "
                             "first caches there\n", dir.c_str(), kCacheMark);
        return kExitInvalid;
    }
    const std::vector<CacheEntry> doomed = to_remove(usage, kinds, action == "prune", days);
    std::vector<std::string> problems;
    const uint64_t freed = remove_cache_entries(doomed, problems);
    if (json) {
        nlohmann::json removed = nlohmann::json::array();
        for (const CacheEntry& e : doomed) removed.push_back(e.path.string());
        std::printf("%s\n", nlohmann::json({{"folder", dir.string()}, {"removed", removed}, {"bytes_freed", freed},
                                            {"problems", problems}, {"ok", problems.empty()}})
                                .dump(2).c_str());
    } else {
        for (const std::string& p : problems) std::fprintf(stderr, "fieldflow cache: error: cannot remove %s\n", p.c_str());
        std::printf("%s %zu %s from %s, %s freed\n", action == "prune" ? "pruned" : "cleared", doomed.size(),
                    action == "prune" ? "abandoned entries" : "cache entries", dir.c_str(), byte_text(freed).c_str());
    }
    std::fflush(stdout);
    return problems.empty() ? kExitOk : kExitNodeFailed;
}

const TableCommandRegistration registration{
    "cache", "show, clear or prune the cache folder", cache_table, cache_main};

} // namespace
} // namespace fieldflow::host
