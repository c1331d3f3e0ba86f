#include "atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

namespace fs = std::filesystem;

namespace ff::nodes {

namespace {

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string errno_text(int error) { return std::strerror(error); }

// A name no other writer (thread or process) picks: pid, a process-wide counter and randomness.
std::string unique_suffix() {
    static std::atomic<uint64_t> counter{0};
    thread_local std::mt19937_64 random(
        std::random_device{}() ^
        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        std::hash<std::thread::id>{}(std::this_thread::get_id()));
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%d-%llu-%08llx", int(::getpid()),
                  (unsigned long long)counter.fetch_add(1),
                  (unsigned long long)(random() & 0xffffffffu));
    return buffer;
}

// Creates the temporary file (mode 0666 less the umask, like any new file) and returns its path.
fs::path create_temporary(const fs::path& target) {
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string stem = target.stem().string(), extension = target.extension().string();
    for (int attempt = 0; attempt < 16; ++attempt) {
        fs::path temporary = folder / ("." + stem + ".tmp-" + unique_suffix() + extension);
        int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return temporary;
        }
        if (errno != EEXIST)
            throw Error("cannot write to folder " + quoted(folder) + ": " + errno_text(errno));
    }
    throw Error("cannot create a temporary file in " + quoted(folder));
}

// Flushes the file's data to disk so that after a crash the renamed file is complete, not empty.
void flush_to_disk(const fs::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot reopen " + quoted(path) + ": " + errno_text(errno));
    int result = ::fsync(fd);
    int error = errno;
    ::close(fd);
    if (result != 0) throw Error("cannot flush " + quoted(path) + " to disk: " + errno_text(error));
}

} // namespace

void atomic_write(const fs::path& target,
                  const std::function<void(const fs::path& temporary)>& write) {
    if (target.empty()) throw Error("empty output path");
    if (!target.has_filename() || target.filename() == "." || target.filename() == "..")
        throw Error("output path " + quoted(target) + " names a folder, not a file");

    std::error_code error;
    if (fs::is_directory(target, error))
        throw Error("output path " + quoted(target) + " is an existing folder");
    const fs::path folder = target.parent_path();
    if (!folder.empty()) {
        fs::create_directories(folder, error);
        if (error)
            throw Error("cannot create folder " + quoted(folder) + ": " + error.message());
    }

    const fs::path temporary = create_temporary(target);
    try {
        write(temporary);
        flush_to_disk(temporary);
        if (::rename(temporary.c_str(), target.c_str()) != 0)
            throw Error("cannot rename " + quoted(temporary) + " to " + quoted(target) + ": " +
                        errno_text(errno));
    } catch (...) {
        fs::remove(temporary, error); // best effort; the original failure is what matters
        throw;
    }
}

void atomic_write_file(const fs::path& target, std::string_view bytes) {
    atomic_write(target, [&](const fs::path& temporary) {
        int fd = ::open(temporary.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0) throw Error("cannot open " + quoted(temporary) + ": " + errno_text(errno));
        const char* data = bytes.data();
        size_t left = bytes.size();
        while (left > 0) {
            ssize_t written = ::write(fd, data, left);
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) {
                int code = written < 0 ? errno : ENOSPC;
                ::close(fd);
                throw Error("cannot write " + quoted(target) + ": " + errno_text(code));
            }
            data += written;
            left -= size_t(written);
        }
        if (::close(fd) != 0) throw Error("cannot write " + quoted(target) + ": " + errno_text(errno));
    });
}

} // namespace ff::nodes
