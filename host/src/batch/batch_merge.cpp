// `fieldflow batch --merge`: shard summaries combined into one.
#include <fieldflow/host/batch/batch_runner.hpp>
#include <fieldflow/host/batch/manifest.hpp>
#include <fieldflow/host/batch/summary.hpp>
#include <fieldflow/host/cli.hpp>

#include "output_folder.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace fieldflow::host::batch {
namespace {

// A path the shard's summary gives relative to its folder, made relative to the merged one.
std::string rebase(const std::string& path, const fs::path& shard_dir, const fs::path& output) {
    if (path.empty()) return path;
    const fs::path target = (fs::absolute(shard_dir) / path).lexically_normal();
    return target.lexically_relative(fs::absolute(output).lexically_normal()).generic_string();
}

void warn(const std::string& message) { std::fprintf(stderr, "warning: %s\n", message.c_str()); }

} // namespace

int merge_batches(const std::vector<fs::path>& dirs, const fs::path& output) {
    SummaryInfo info;
    std::vector<ImageResult> merged;
    std::map<std::string, size_t> by_stem;       // stem -> position in merged
    std::map<std::string, std::string> origin;   // stem -> the folder it came from
    std::map<unsigned, std::set<unsigned>> shards; // shard count -> indices seen
    bool incomplete = false;

    for (const fs::path& dir : dirs) {
        info.merged.push_back(dir.string());
        std::vector<ImageResult> results;
        std::string shard;
        std::error_code ec;
        if (fs::exists(dir / "summary.json", ec)) {
            try {
                SummaryFile s = read_summary_json(dir / "summary.json");
                results = std::move(s.results);
                shard = s.info.shard;
                if (info.graph.empty()) info.graph = s.info.graph;
                for (const auto& [device, error] : s.info.devices_out) // each shard's own machine
                    info.devices_out.emplace_back(device, error + " (in '" + dir.string() + "')");
                if (s.info.interrupted) {
                    warn("'" + dir.string() + "' holds an interrupted batch; its unfinished images count as not run");
                    incomplete = true;
                }
            } catch (const std::exception& e) {
                std::fprintf(stderr, "fieldflow batch: error: %s\n", e.what());
                return kExitInvalid;
            }
        } else if (fs::exists(dir / "manifest.jsonl", ec)) {
            warn("'" + dir.string() + "' has no summary.json (did its batch finish?); using its "
                 "manifest, which lists only the images it finished");
            incomplete = true;
            std::vector<std::string> warnings;
            for (auto& [stem, r] : read_manifest(dir / "manifest.jsonl", warnings)) results.push_back(r);
            for (const std::string& w : warnings) warn(w);
            if (!results.empty()) shard = results.front().shard;
        } else {
            std::fprintf(stderr, "fieldflow batch: error: '%s' holds no batch (neither summary.json "
                                 "nor manifest.jsonl)\n", dir.string().c_str());
            return kExitInvalid;
        }
        if (auto s = parse_shard(shard)) {
            if (!shards[s->count].insert(s->index).second)
                warn("shard " + shard + " appears twice (again in '" + dir.string() + "')");
        }
        for (ImageResult& r : results) {
            r.folder = rebase(r.folder, dir, output);
            r.report = rebase(r.report, dir, output);
            r.log = rebase(r.log, dir, output);
            for (FailedAttempt& a : r.retried_after) a.log = rebase(a.log, dir, output);
            const auto it = by_stem.find(r.stem);
            if (it == by_stem.end()) {
                by_stem[r.stem] = merged.size();
                origin[r.stem] = dir.string();
                merged.push_back(std::move(r));
                continue;
            }
            // The same image twice (a shard run twice, or overlapping folders): keep a done one.
            ImageResult& kept = merged[it->second];
            warn("image '" + r.stem + "' is in both '" + origin[r.stem] + "' and '" + dir.string() +
                 "'; keeping the " + (kept.status != kStatusDone && r.status == kStatusDone ? "second" : "first"));
            if (kept.status != kStatusDone && r.status == kStatusDone) {
                kept = std::move(r);
                origin[kept.stem] = dir.string();
            }
        }
    }
    if (shards.size() > 1) {
        warn("the folders hold shards of different splits; check that they belong together");
        incomplete = true;
    }
    for (const auto& [count, seen] : shards)
        for (unsigned i = 0; i < count; ++i)
            if (!seen.count(i)) {
                warn("shard " + std::to_string(i) + "/" + std::to_string(count) + " is missing");
                incomplete = true;
            }

    std::sort(merged.begin(), merged.end(), [](const ImageResult& a, const ImageResult& b) {
        return a.input != b.input ? a.input < b.input : a.stem < b.stem;
    });
    try {
        own_merge_output(output);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fieldflow batch: error: %s\n", e.what());
        return kExitInvalid;
    }
    info.interrupted = false;
    write_summary(output, merged, info);
    const SummaryTotals t = summary_totals(merged);
    std::fprintf(stderr, "merged %zu folder%s: %zu images, %zu done, %zu failed%s; summary: %s\n",
                 dirs.size(), dirs.size() == 1 ? "" : "s", t.images, t.done, t.failed,
                 t.not_run ? (", " + std::to_string(t.not_run) + " not run").c_str() : "",
                 (output / "index.html").c_str());
    return incomplete || t.failed || t.not_run ? kExitNodeFailed : kExitOk;
}

} // namespace fieldflow::host::batch
