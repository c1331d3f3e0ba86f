// The run log on stderr: one line per finished node (status, time, reason), the nodes' own log
// lines, warnings and a summary. Progress lines are drawn by the ProgressBoard it writes through.
#pragma once

#include <fieldflow/host/progress.hpp>
#include <fieldflow/host/scheduler.hpp>
#include <fieldflow/plugin.h>

#include <string>

namespace fieldflow::host {

class RunLog {
public:
    // quiet: only warnings, errors and failures.
    RunLog(ProgressBoard& board, bool quiet) : board_(board), quiet_(quiet) {}

    void node_started(const std::string& node);
    void node_progress(const std::string& node, uint64_t done, uint64_t total,
                       const std::string& detail);
    void node_finished(const std::string& node, const NodeResult& result);
    void node_message(const std::string& node, ff_log_level level, const std::string& message);
    void warning(const std::string& message);
    void info(const std::string& message);
    void summary(const RunResult& result, size_t node_count);

private:
    ProgressBoard& board_;
    bool quiet_;
};

} // namespace fieldflow::host
