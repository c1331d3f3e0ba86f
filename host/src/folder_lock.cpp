#include "folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fieldflow::host {
namespace {

// What the holder wrote into the lock file (its first line, bounded), or "".
std::string holder_of(int fd) {
    char buffer[512];
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    if (n <= 0) return {};
    std::string text(buffer, size_t(n));
    text = text.substr(0, text.find('\n'));
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return text;
}

} // namespace

FolderLock::FolderLock(std::filesystem::path lock_file, const std::string& holder, const std::string& busy)
    : file_(std::move(lock_file)) {
    // The file is removed when its holder ends, so a lock taken on a file that was unlinked in
    // between is no lock: retry until the locked file is the one at the path.
    for (;;) {
        // O_CLOEXEC: processes the holder starts must not hold the lock after it is gone.
        const int fd = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) throw std::runtime_error("cannot create '" + file_.string() + "': " + std::strerror(errno));
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const std::string who = holder_of(fd);
            ::close(fd);
            throw std::runtime_error(busy + (who.empty() ? "" : " (" + who + ")"));
        }
        struct stat held {}, named {};
        if (::fstat(fd, &held) == 0 && ::stat(file_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
            held.st_dev == named.st_dev) {
            fd_ = fd;
            break;
        }
        ::close(fd);
    }
    const std::string text = "pid " + std::to_string(::getpid()) + ": " + holder + "\n";
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, text.data(), text.size(), 0);
}

FolderLock::FolderLock(FolderLock&& other) noexcept : file_(std::move(other.file_)), fd_(other.fd_) {
    other.fd_ = -1;
}

FolderLock::~FolderLock() {
    if (fd_ < 0) return;
    ::unlink(file_.c_str()); // while still held: nothing is left behind
    ::close(fd_);
}

} // namespace fieldflow::host
