// The batch's output folder: an exclusive lock (one batch writes a folder at a time), the
// .partial/ folder where images' outputs are written, and the move of a finished image's folder
// into place.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace fieldflow::host::batch {

class OutputFolder {
public:
    // Creates the folder, logs/ and .partial/ and takes the lock. What earlier batches left in
    // .partial/ stays until adopt_leftovers. Throws std::runtime_error (also when another batch
    // holds the lock).
    explicit OutputFolder(std::filesystem::path root);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    const std::filesystem::path& root() const { return root_; }
    std::filesystem::path log_for(const std::string& stem) const; // logs/<stem>.log
    std::filesystem::path final_for(const std::string& stem) const; // <stem>/

    // A new, empty folder .partial/<stem>.<random>/ for one image's run, with a note beside it
    // (<folder>.attempt) naming the stem and `attempt` (which input and graph it is for).
    std::filesystem::path new_partial(const std::string& stem, const std::string& attempt) const;

    // The partial folders an interrupted or killed batch left, for --resume to run the same images
    // in again: node cache keys include the output path, so only the same folder leads a
    // checkpointing node (Train) back to its checkpoint, and it still holds what the stopped run
    // wrote (snapshots). Returns, for each stem of `attempts`, its leftover folder whose note
    // names the same attempt; deletes everything else left in .partial/ (so an empty map clears
    // it, as a batch without --resume does).
    std::map<std::string, std::filesystem::path> adopt_leftovers(
        const std::map<std::string, std::string>& attempts) const;

    // Deletes a partial folder and its note.
    void discard_partial(const std::filesystem::path& partial) const;

    // Renames `partial` to <stem>/, replacing an earlier one, and drops its note; then syncs the
    // folder, so the move survives a crash before the manifest says the image is done. Throws
    // std::runtime_error.
    void move_into_place(const std::filesystem::path& partial, const std::string& stem) const;

    // Removes .partial/ when nothing is left in it.
    void tidy() const;

private:
    std::filesystem::path root_;
    int lock_fd_ = -1;
};

} // namespace fieldflow::host::batch
