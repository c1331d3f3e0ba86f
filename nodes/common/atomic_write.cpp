#include "atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
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

// When this process (the plugin, loaded at start) began: a temporary file older than that, whose
// writer process is gone, was left by a run that was killed.
const fs::file_time_type process_start = fs::file_time_type::clock::now();

// The temporary-file name prefix for `target`: ".<stem>.tmp-" (then "<pid>-<n>-<random><ext>").
std::string temporary_prefix(const fs::path& target) { return "." + target.stem().string() + ".tmp-"; }

// Removes the temporaries a killed writer of `target` left beside it (a SIGKILL during a 27 MB
// PNG leaves a 27 MB hidden file; files, or folders of a writer that opens its file itself): same target name, older than this process, and written by a
// process that no longer exists. A live writer's file (another run writing the same folder) is
// never touched. Best effort: what cannot be removed stays.
void remove_stale_temporaries(const fs::path& folder, const fs::path& target) {
    const std::string prefix = temporary_prefix(target), extension = target.extension().string();
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + extension.size() ||
            name.compare(name.size() - extension.size(), extension.size(), extension) != 0)
            continue;
        const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
        if (pid <= 0 || pid == long(::getpid())) continue;
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue; // its writer may be running
        std::error_code ignored;
        // A folder: where a writer that opens its file itself put it (WriteImage's EXR encoder).
        const bool file = entry.is_regular_file(ignored), folder = !file && entry.is_directory(ignored);
        if ((!file && !folder) || fs::last_write_time(entry.path(), ignored) >= process_start) continue;
        if (folder && !entry.is_symlink(ignored)) fs::remove_all(entry.path(), ignored);
        else if (file) fs::remove(entry.path(), ignored);
    }
}

// The reason a write into `folder` failed when the file system is full, naming ENOSPC and the
// folder (a writer such as OpenCV says only that it could not write); "" when there is room.
// Checked before the temporary file is removed, while it still takes up the space.
std::string out_of_space(const fs::path& folder) {
    struct statvfs fs_info {};
    if (::statvfs(folder.c_str(), &fs_info) != 0) return "";
    const unsigned long long blocks = ::geteuid() == 0 ? fs_info.f_bfree : fs_info.f_bavail;
    if (blocks * fs_info.f_frsize >= 64 * 1024) return "";
    return "no space left on device (ENOSPC) in folder " + quoted(folder) +
           ": free some space there or write the outputs elsewhere";
}

// Creates the temporary file (mode 0666 less the umask, like any new file) and returns its path.
fs::path create_temporary(const fs::path& target) {
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string extension = target.extension().string();
    for (int attempt = 0; attempt < 16; ++attempt) {
        fs::path temporary = folder / (temporary_prefix(target) + unique_suffix() + extension);
        int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return temporary;
        }
        if (errno == ENOSPC || errno == EDQUOT) {
            const std::string full = out_of_space(folder);
            throw Error(full.empty() ? "cannot write to folder " + quoted(folder) + ": " + errno_text(ENOSPC) : full);
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

    remove_stale_temporaries(folder.empty() ? fs::path(".") : folder, target);
    const fs::path temporary = create_temporary(target);
    try {
        write(temporary);
        flush_to_disk(temporary);
        if (::rename(temporary.c_str(), target.c_str()) != 0)
            throw Error("cannot rename " + quoted(temporary) + " to " + quoted(target) + ": " +
                        errno_text(errno));
    } catch (const std::exception& e) {
        const std::string full = out_of_space(folder.empty() ? fs::path(".") : folder);
        fs::remove(temporary, error); // best effort; the original failure is what matters
        if (!full.empty()) throw Error(full + " (writing " + quoted(target) + ")");
        throw;
    }
}

namespace {

// Writes `bytes` to the (empty) file `temporary`; `before_chunk` runs before each chunk.
void write_all(const fs::path& temporary, const fs::path& target, std::string_view bytes,
               const std::function<void(size_t written)>& before_chunk) {
    int fd = ::open(temporary.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw Error("cannot open " + quoted(temporary) + ": " + errno_text(errno));
    size_t done = 0;
    try {
        while (done < bytes.size()) {
            if (before_chunk) before_chunk(done);
            const size_t chunk = std::min(kWriteChunk, bytes.size() - done);
            for (size_t left = chunk; left > 0;) {
                ssize_t written = ::write(fd, bytes.data() + done, left);
                if (written < 0 && errno == EINTR) continue;
                if (written <= 0)
                    throw Error("cannot write " + quoted(target) + ": " +
                                errno_text(written < 0 ? errno : ENOSPC));
                done += size_t(written);
                left -= size_t(written);
            }
        }
    } catch (...) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0) throw Error("cannot write " + quoted(target) + ": " + errno_text(errno));
}

} // namespace

void atomic_write_file(const fs::path& target, std::string_view bytes) {
    atomic_write(target, [&](const fs::path& temporary) { write_all(temporary, target, bytes, {}); });
}

void atomic_write_file(const fs::path& target, std::string_view bytes, const std::function<bool()>& stop) {
    if (stop()) throw Cancelled();
    atomic_write(target, [&](const fs::path& temporary) {
        write_all(temporary, target, bytes, [&](size_t) {
            if (stop()) throw Cancelled();
        });
    });
}

void atomic_write_file(const fs::path& target, std::string_view bytes, const Node& node,
                       const WriteProgress& progress) {
    node.throw_if_cancelled();
    atomic_write(target, [&](const fs::path& temporary) {
        write_all(temporary, target, bytes, [&](size_t written) {
            if (progress) progress(written, bytes.size());
            node.throw_if_cancelled();
        });
    });
    if (progress) progress(bytes.size(), bytes.size());
}

void atomic_write_files(const std::vector<FileBytes>& files, const std::function<bool()>& stop) {
    std::vector<std::exception_ptr> errors(files.size());
    auto write = [&](size_t i) {
        try {
            atomic_write_file(files[i].target, files[i].bytes, stop);
        } catch (...) {
            errors[i] = std::current_exception();
        }
    };
    std::vector<std::thread> others;
    for (size_t i = 1; i < files.size(); ++i) others.emplace_back(write, i);
    if (!files.empty()) write(0);
    for (std::thread& t : others) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

} // namespace ff::nodes
