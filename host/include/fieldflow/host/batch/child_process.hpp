// One image's run as a child process: its own process group (so the batch alone decides which
// signals reach it), stdout and stderr into a log file, killed if the batch dies (even by
// SIGKILL), so a crash, OOM or driver fault in one image cannot take the batch down.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

struct ChildExit {
    bool signaled = false;
    int code = 0;   // exit code, when !signaled
    int signal = 0; // the signal that ended it, when signaled
    bool ok() const { return !signaled && code == 0; }
    std::string describe() const; // "exit code 1", "killed by signal 9 (Killed)"
};

// Starts `program` with `args` (argv[1..]), stdin from /dev/null, stdout and stderr into
// `log_file` (truncated). Must be called from the thread that lives as long as the batch (the
// child's death signal is tied to it). Throws std::runtime_error when it cannot start.
pid_t spawn_child(const std::string& program, const std::vector<std::string>& args,
                  const std::filesystem::path& log_file);

// The child's exit if it has ended (reaping it), nullopt while it runs.
std::optional<ChildExit> poll_child(pid_t pid);

// Sends `signal` to the child's process group.
void signal_child(pid_t pid, int signal);

// The path of the running program (/proc/self/exe).
std::string self_executable();

// The last non-empty line of a text file (progress lines end in '\r' or '\n'), from its tail.
std::string last_line_of(const std::filesystem::path& file);

// The last error message line (case-insensitive "error: "), with the indented lines that go on
// from it, else the last line naming an error ("error"), else the last non-empty line.
std::string failure_line_of(const std::filesystem::path& file);

} // namespace fieldflow::host::batch
