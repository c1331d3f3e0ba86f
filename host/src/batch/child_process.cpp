#include <fieldflow/host/batch/child_process.hpp>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <pthread.h>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace fieldflow::host::batch {

std::string ChildExit::describe() const {
    if (!signaled) return "exit code " + std::to_string(code);
    const char* name = ::strsignal(signal);
    return "killed by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

pid_t spawn_child(const std::string& program, const std::vector<std::string>& args,
                  const fs::path& log_file) {
    // Everything the child needs is prepared before fork(): between fork and exec only
    // async-signal-safe calls are allowed (the batch may have other threads).
    std::vector<std::string> argv_text;
    argv_text.push_back(program);
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);

    const int log_fd = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0)
        throw std::runtime_error("cannot create log '" + log_file.string() + "': " + std::strerror(errno));
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) {
        ::close(log_fd);
        throw std::runtime_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
    }
    // SIGINT and SIGTERM stay blocked from fork until the child has reset their handlers: one
    // forwarded in between would otherwise run the batch's handler, inherited by the child, and be
    // lost (the image then ran to the end, uninterrupted). Pending, it ends the child once unblocked.
    sigset_t stops, previous;
    sigemptyset(&stops);
    sigaddset(&stops, SIGINT);
    sigaddset(&stops, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &stops, &previous);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid != 0) ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    if (pid < 0) {
        const int error = errno;
        ::close(log_fd);
        ::close(null_fd);
        throw std::runtime_error(std::string("cannot start a process: ") + std::strerror(error));
    }
    if (pid == 0) {
        ::setpgid(0, 0);                     // terminal signals reach the batch, which forwards them
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // the batch died (even by SIGKILL): so does the image
        if (::getppid() != parent) ::_exit(127); // it died before prctl took effect
        // An inherited handler or ignore would survive exec or swallow a stop: the defaults, then
        // the mask the batch had (a stop that came since fork ends the child here).
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        ::dup2(null_fd, STDIN_FILENO);
        ::dup2(log_fd, STDOUT_FILENO);
        ::dup2(log_fd, STDERR_FILENO);
        ::execv(program.c_str(), argv.data());
        const char message[] = "fieldflow batch: cannot run the fieldflow program\n";
        ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
        (void)ignored;
        ::_exit(127);
    }
    ::setpgid(pid, pid); // also from this side, so signal_child works before the child runs
    ::close(log_fd);
    ::close(null_fd);
    return pid;
}

std::optional<ChildExit> poll_child(pid_t pid) {
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid, &status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0) return std::nullopt;
    ChildExit exit;
    if (r < 0) { // not our child any more: cannot happen unless someone reaped it
        exit.code = 127;
        return exit;
    }
    if (WIFSIGNALED(status)) {
        exit.signaled = true;
        exit.signal = WTERMSIG(status);
    } else {
        exit.code = WEXITSTATUS(status);
    }
    return exit;
}

void signal_child(pid_t pid, int signal) {
    if (::kill(-pid, signal) != 0) ::kill(pid, signal);
}

std::string self_executable() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find the running program (/proc/self/exe): " + ec.message());
    return exe.string();
}

namespace {

// The last `bytes` of a file, split into non-empty lines ('\r' ends a line too).
std::vector<std::string> tail_lines(const fs::path& file, size_t bytes) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return {};
    const std::streamoff size = in.tellg();
    const std::streamoff begin = std::max<std::streamoff>(0, size - std::streamoff(bytes));
    std::string text(size_t(size - begin), '\0');
    in.seekg(begin);
    in.read(text.data(), std::streamsize(text.size()));
    text.resize(size_t(in.gcount()));
    std::vector<std::string> lines;
    std::string line;
    for (char c : text) {
        if (c == '\n' || c == '\r') {
            if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
            line.clear();
        } else {
            line += c;
        }
    }
    if (line.find_first_not_of(" \t") != std::string::npos) lines.push_back(line);
    if (begin > 0 && !lines.empty() && lines.size() > 1) lines.erase(lines.begin()); // cut line
    return lines;
}

std::string strip_escapes(const std::string& line) {
    std::string out;
    for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b') { // CSI: ESC [ ... final byte
            if (i + 1 < line.size() && line[i + 1] == '[') {
                i += 2;
                while (i < line.size() && !(line[i] >= '@' && line[i] <= '~')) ++i;
            }
            continue;
        }
        if (static_cast<unsigned char>(line[i]) >= 0x20 || line[i] == '\t') out += line[i];
    }
    return out;
}

} // namespace

std::string last_line_of(const fs::path& file) {
    const auto lines = tail_lines(file, 2048);
    return lines.empty() ? std::string() : strip_escapes(lines.back());
}

std::string failure_line_of(const fs::path& file) {
    const auto lines = tail_lines(file, 16384);
    // A message line ("error: ...", "FILE:L:C: error: ...") first: a graph that fails validation
    // ends its output with a count ("1 error") that names nothing.
    for (const char* mark : {"error: ", "error"})
        for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
            std::string lower = *it;
            for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (lower.find(mark) == std::string::npos) continue;
            // A message that goes on over indented lines (the devices after "cannot open compute
            // device '9': ... devices:") is one reason: its lines joined, a few at most.
            std::string reason = strip_escapes(*it);
            size_t more = 0;
            for (auto next = it.base(); next != lines.end() && more < 16 && (next->front() == ' ' || next->front() == '\t'); ++next, ++more)
                reason += " " + strip_escapes(next->substr(next->find_first_not_of(" \t")));
            return reason;
        }
    return lines.empty() ? std::string() : strip_escapes(lines.back());
}

} // namespace fieldflow::host::batch
