#include <fieldflow/host/regular_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fieldflow::host {
namespace {

std::string not_a_file(mode_t mode) {
    if (S_ISDIR(mode)) return "is a folder, not a file";
    if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a file";
    if (S_ISSOCK(mode)) return "is a socket, not a file";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a file";
    return "is not a regular file";
}

} // namespace

ReadStatus read_regular_file(const std::string& path, std::string& data, std::string& error,
                             size_t max_bytes) {
    data.clear();
    error.clear();
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked on the open
    // descriptor, so what is read is what was checked.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return ReadStatus::missing;
        error = std::string("cannot be read: ") + std::strerror(errno);
        return ReadStatus::failed;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        error = ::fstat(fd, &st) != 0 ? std::string("cannot be read: ") + std::strerror(errno)
                                       : not_a_file(st.st_mode);
        ::close(fd);
        return ReadStatus::failed;
    }
    if (uintmax_t(st.st_size) > max_bytes) {
        error = "is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                " expected";
        ::close(fd);
        return ReadStatus::failed;
    }
    data.reserve(size_t(st.st_size));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = std::string("cannot be read: ") + std::strerror(errno);
            ::close(fd);
            return ReadStatus::failed;
        }
        if (n == 0) break;
        if (data.size() + size_t(n) > max_bytes) {
            error = "grew past " + std::to_string(max_bytes) + " bytes while being read";
            ::close(fd);
            return ReadStatus::failed;
        }
        data.append(buffer, size_t(n));
    }
    ::close(fd);
    return ReadStatus::ok;
}

std::string regular_file_problem(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return {}; // the caller's own open says why
    struct stat st {};
    const bool stated = ::fstat(fd, &st) == 0;
    const int error = errno;
    ::close(fd);
    if (!stated) return std::string("cannot be read: ") + std::strerror(error);
    return S_ISREG(st.st_mode) ? std::string() : not_a_file(st.st_mode);
}

} // namespace fieldflow::host
