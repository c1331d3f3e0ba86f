// An exclusive lock on a folder fieldflow writes (OUTPUT/.lock for a batch, FOLDER/.fieldflow-lock
// for a run): one writer at a time, so two commands never mix their files in one folder. The lock
// file names its holder (pid and command), so a second writer's error can say who it is; the
// holder removes it when it ends. Held with flock(): a killed holder's lock ends with it.
#pragma once

#include <filesystem>
#include <string>

namespace fieldflow::host {

class FolderLock {
public:
    // Locks `lock_file` for `holder` (e.g. "fieldflow run graphs/lake.yaml"). When another process
    // holds it, throws std::runtime_error with `busy` followed by " (pid N: COMMAND)" as far as
    // the lock file says. Other failures throw std::runtime_error too.
    FolderLock(std::filesystem::path lock_file, const std::string& holder, const std::string& busy);
    ~FolderLock();
    FolderLock(FolderLock&& other) noexcept;
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;
    FolderLock& operator=(FolderLock&&) = delete;

private:
    std::filesystem::path file_;
    int fd_ = -1;
};

} // namespace fieldflow::host
