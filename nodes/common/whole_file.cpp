#include "whole_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ff::nodes {
namespace {

std::string not_a(mode_t mode, const std::string& what) {
    if (S_ISDIR(mode)) return "is a folder, not a " + what;
    if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a " + what;
    if (S_ISSOCK(mode)) return "is a socket, not a " + what;
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a " + what;
    return "is not a regular file, not a " + what;
}

} // namespace

std::vector<unsigned char> read_regular_file(const std::filesystem::path& path, uintmax_t max_bytes,
                                             const std::string& what) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error(errno == ENOENT ? std::string("does not exist")
                                                 : std::string("cannot be read: ") + std::strerror(errno));
    struct stat st {};
    std::string problem;
    if (::fstat(fd, &st) != 0) problem = std::string("cannot be read: ") + std::strerror(errno);
    else if (!S_ISREG(st.st_mode)) problem = not_a(st.st_mode, what);
    else if (uintmax_t(st.st_size) > max_bytes)
        problem = "is " + std::to_string(st.st_size) + " bytes, more than a " + what + " holds (at most " +
                  std::to_string(max_bytes) + ")";
    std::vector<unsigned char> bytes;
    if (problem.empty()) {
        bytes.resize(size_t(st.st_size));
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                problem = n < 0 ? std::string("cannot be read: ") + std::strerror(errno)
                                : "changed size while being read";
                break;
            }
            done += size_t(n);
        }
    }
    ::close(fd);
    if (!problem.empty()) throw std::runtime_error(problem);
    return bytes;
}

std::optional<std::vector<unsigned char>> read_whole_file(const std::filesystem::path& path) {
    try {
        return read_regular_file(path, UINTMAX_MAX, "file");
    } catch (const std::runtime_error&) {
        return std::nullopt;
    }
}

} // namespace ff::nodes
