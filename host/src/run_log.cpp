#include <fieldflow/host/run_log.hpp>

#include <cstdio>

namespace fieldflow::host {

void RunLog::node_started(const std::string& node) { board_.start(node); }

void RunLog::node_progress(const std::string& node, uint64_t done, uint64_t total,
                           const std::string& detail) {
    board_.update(node, done, total, detail);
}

void RunLog::node_finished(const std::string& node, const NodeResult& result) {
    board_.finish(node);
    const bool problem = result.status == NodeStatus::Failed;
    if (quiet_ && !problem) return;
    std::string where;
    if (result.status == NodeStatus::CachedDisk) where = "  (disk)";
    else if (result.status == NodeStatus::CachedMemory) where = "  (memory)";
    char line[512];
    std::snprintf(line, sizeof line, "%-9s %-20s %9.3f s%s", status_name(result.status),
                  node.c_str(), result.seconds, where.c_str());
    std::string text = line;
    if (!result.message.empty()) text += "  " + result.message;
    board_.print(text);
}

void RunLog::node_message(const std::string& node, ff_log_level level, const std::string& message) {
    if (quiet_ && level != FF_LOG_WARNING) return;
    const char* prefix = level == FF_LOG_WARNING ? "warning: " : level == FF_LOG_DEBUG ? "debug: " : "";
    board_.print("[" + node + "] " + prefix + message);
}

void RunLog::warning(const std::string& message) { board_.print("warning: " + message); }

void RunLog::info(const std::string& message) {
    if (!quiet_) board_.print(message);
}

void RunLog::summary(const RunResult& result, size_t node_count) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%zu nodes: %zu ran, %zu cached, %zu failed, %zu skipped%s in %.3f s", node_count,
                  result.count(NodeStatus::Ran),
                  result.count(NodeStatus::CachedMemory) + result.count(NodeStatus::CachedDisk),
                  result.count(NodeStatus::Failed), result.count(NodeStatus::Skipped),
                  result.interrupted ? " (interrupted)" : "", result.seconds);
    if (!quiet_ || result.any_failed() || result.interrupted) board_.print(line);
}

} // namespace fieldflow::host
