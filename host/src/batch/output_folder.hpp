// The batch's output folder: an exclusive lock (one batch writes a folder at a time), the
// .partial/ folder where images' outputs are written, and the move of a finished image's folder
// into place.
#pragma once

#include <filesystem>
#include <string>

namespace fieldflow::host::batch {

class OutputFolder {
public:
    // Creates the folder, logs/ and .partial/, takes the lock and removes what an earlier,
    // killed batch left in .partial/. Throws std::runtime_error (also when another batch holds
    // the lock).
    explicit OutputFolder(std::filesystem::path root);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    const std::filesystem::path& root() const { return root_; }
    std::filesystem::path log_for(const std::string& stem) const; // logs/<stem>.log
    std::filesystem::path final_for(const std::string& stem) const; // <stem>/

    // A new, empty folder .partial/<stem>.<random>/.
    std::filesystem::path new_partial(const std::string& stem) const;

    // Renames `partial` to <stem>/, replacing an earlier one; then syncs the folder, so the move
    // survives a crash before the manifest says the image is done. Throws std::runtime_error.
    void move_into_place(const std::filesystem::path& partial, const std::string& stem) const;

    // Removes .partial/ when nothing is left in it.
    void tidy() const;

private:
    std::filesystem::path root_;
    int lock_fd_ = -1;
};

} // namespace fieldflow::host::batch
