#include "file_path_checks.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <system_error>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

struct FileUse {
    const PlannedNode* node;
    const ResolvedParam* param;
};

std::string where(const Graph& graph, const FileUse& use) {
    return graph.file + ":" + std::to_string(use.param->pos.line) + ":" +
           std::to_string(use.param->pos.column);
}

} // namespace

std::string file_identity(const std::string& path) {
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    if (ec) return fs::path(path).lexically_normal().string();
    fs::path canonical = fs::weakly_canonical(absolute, ec);
    return (ec ? absolute.lexically_normal() : canonical).string();
}

void check_file_paths(const Graph& graph, Diagnostics& diags) {
    // A side-output param without FF_PARAM_WRITES_FILE names a folder (Train's snapshots): its node
    // writes, replaces and removes files there, so no other node may write in it or be it.
    std::map<std::string, FileUse> reads, writes;
    std::vector<std::pair<std::string, FileUse>> writers;
    std::vector<std::pair<std::string, FileUse>> folders; // side-output folders: a node owns all in them
    for (const PlannedNode& node : graph.nodes) {
        if (!node.op) continue;
        for (const ResolvedParam& p : node.params) {
            const auto* path = std::get_if<std::string>(&p.value);
            if (!p.info || !path || path->empty()) continue;
            if (p.info->flags & FF_PARAM_READS_FILE) reads.emplace(file_identity(*path), FileUse{&node, &p});
            if (p.info->flags & FF_PARAM_WRITES_FILE) writers.emplace_back(file_identity(*path), FileUse{&node, &p});
            else if (p.info->flags & FF_PARAM_SIDE_OUTPUT) folders.emplace_back(file_identity(*path), FileUse{&node, &p});
        }
    }
    for (size_t a = 0; a < folders.size(); ++a)
        for (size_t b = 0; b < a; ++b) {
            const auto& [inner, use] = folders[a];
            const auto& [outer, owner] = folders[b];
            if (use.node == owner.node) continue;
            if (inner != outer && inner.rfind(outer + "/", 0) != 0 && outer.rfind(inner + "/", 0) != 0) continue;
            diags.error(use.param->pos, "node '" + use.node->name + "': param '" + use.param->info->name + "': '" +
                                            std::get<std::string>(use.param->value) + "' overlaps '" +
                                            std::get<std::string>(owner.param->value) + "', the folder node '" +
                                            owner.node->name + "' owns (param '" + owner.param->info->name + "', " +
                                            where(graph, owner) + "); give each its own path");
        }
    for (const auto& [file, use] : writers) {
        const std::string& path = std::get<std::string>(use.param->value);
        const std::string label = "node '" + use.node->name + "': param '" + use.param->info->name + "': ";
        if (auto [first, inserted] = writes.emplace(file, use); !inserted) {
            diags.error(use.param->pos, label + "'" + path + "' is also written by node '" +
                                            first->second.node->name + "' (" + where(graph, first->second) +
                                            "); two writers of one file race, give each its own path");
        }
        for (const auto& [folder, owner] : folders) {
            if (owner.node == use.node || file.rfind(folder + "/", 0) != 0) continue;
            diags.error(use.param->pos, label + "'" + path + "' is inside '" +
                                            std::get<std::string>(owner.param->value) + "', the folder node '" +
                                            owner.node->name + "' owns (param '" + owner.param->info->name + "', " +
                                            where(graph, owner) + "); give each its own path");
        }
        if (auto read = reads.find(file); read != reads.end() && !use.node->overwrite) {
            diags.error(use.param->pos, label + "writing '" + path + "' would overwrite the file node '" +
                                            read->second.node->name + "' reads (" + where(graph, read->second) +
                                            "); write elsewhere, or add `overwrite: true` to node '" +
                                            use.node->name + "' to replace it on purpose");
        }
    }
}

} // namespace fieldflow::host
