#include "output_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>
#include <stdexcept>

namespace fs = std::filesystem;

namespace fieldflow::host::batch {
namespace {

std::string random_suffix() {
    static std::mt19937_64 rng{std::random_device{}()};
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
    return buf;
}

// <partial>.attempt: the note beside a partial folder.
fs::path note_of(const fs::path& partial) { return partial.string() + ".attempt"; }

void sync_folder(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return; // best effort: the rename itself has happened
    ::fsync(fd);
    ::close(fd);
}

} // namespace

OutputFolder::OutputFolder(fs::path root) : root_(std::move(root)) {
    std::error_code ec;
    fs::create_directories(root_ / "logs", ec);
    if (!ec) fs::create_directories(root_ / ".partial", ec);
    if (ec) throw std::runtime_error("cannot create output folder '" + root_.string() + "': " + ec.message());
    const fs::path lock = root_ / ".lock";
    // O_CLOEXEC: the images' processes must not hold the lock after the batch is gone.
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0)
        throw std::runtime_error("cannot create '" + lock.string() + "': " + std::strerror(errno));
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        ::close(lock_fd_);
        lock_fd_ = -1;
        throw std::runtime_error("another batch is writing to '" + root_.string() + "'");
    }
}

OutputFolder::~OutputFolder() {
    if (lock_fd_ >= 0) ::close(lock_fd_);
}

fs::path OutputFolder::log_for(const std::string& stem) const { return root_ / "logs" / (stem + ".log"); }

fs::path OutputFolder::final_for(const std::string& stem) const { return root_ / stem; }

fs::path OutputFolder::new_partial(const std::string& stem, const std::string& attempt) const {
    const fs::path dir = root_ / ".partial" / (stem + "." + random_suffix());
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create '" + dir.string() + "': " + ec.message());
    std::ofstream note(note_of(dir), std::ios::binary | std::ios::trunc);
    note << stem << '\n' << attempt << '\n';
    note.close();
    if (!note) {
        fs::remove_all(dir, ec);
        throw std::runtime_error("cannot write '" + note_of(dir).string() + "'");
    }
    return dir;
}

std::map<std::string, fs::path> OutputFolder::adopt_leftovers(
    const std::map<std::string, std::string>& attempts) const {
    // Holding the lock, nothing else writes here: whatever is in .partial/ is left over.
    std::map<std::string, fs::path> adopted;
    std::error_code ec;
    std::vector<fs::path> entries;
    for (const auto& entry : fs::directory_iterator(root_ / ".partial", ec)) entries.push_back(entry.path());
    for (const fs::path& entry : entries) {
        if (!fs::is_directory(fs::symlink_status(entry, ec))) continue; // notes: handled with their folder
        std::ifstream note(note_of(entry), std::ios::binary);
        std::string stem, attempt;
        const bool readable = std::getline(note, stem) && std::getline(note, attempt);
        const auto it = attempts.find(stem);
        if (readable && it != attempts.end() && it->second == attempt && !adopted.count(stem))
            adopted.emplace(stem, entry);
        else
            discard_partial(entry);
    }
    // Notes without a folder, and anything else that is not an adopted folder or its note.
    for (const fs::path& entry : entries) {
        bool keep = false;
        for (const auto& [stem, dir] : adopted) keep = keep || entry == dir || entry == note_of(dir);
        if (!keep) fs::remove_all(entry, ec);
    }
    return adopted;
}

void OutputFolder::discard_partial(const fs::path& partial) const {
    std::error_code ec;
    fs::remove_all(partial, ec);
    fs::remove(note_of(partial), ec);
}

void OutputFolder::move_into_place(const fs::path& partial, const std::string& stem) const {
    const fs::path target = final_for(stem);
    std::error_code ec;
    fs::path old;
    if (fs::exists(fs::symlink_status(target, ec))) {
        // rename() will not replace a non-empty folder: move the old one aside first.
        old = root_ / ".partial" / (stem + ".old." + random_suffix());
        fs::rename(target, old, ec);
        if (ec) throw std::runtime_error("cannot replace '" + target.string() + "': " + ec.message());
    }
    fs::rename(partial, target, ec);
    if (ec) throw std::runtime_error("cannot move outputs to '" + target.string() + "': " + ec.message());
    fs::remove(note_of(partial), ec);
    sync_folder(root_);
    if (!old.empty()) fs::remove_all(old, ec);
}

void OutputFolder::tidy() const {
    std::error_code ec;
    if (fs::is_empty(root_ / ".partial", ec) && !ec) fs::remove(root_ / ".partial", ec);
}

} // namespace fieldflow::host::batch
