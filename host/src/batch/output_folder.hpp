// The batch's output folder: ownership (a batch writes only into a folder it created or found
// empty, marked as its own by OUTPUT/.fieldflow-batch, and replaces only image folders it wrote,
// marked by <stem>/.fieldflow-batch-image), an exclusive lock (one batch writes a folder at a
// time), the .partial/ folder where images' outputs are written, and the move of a finished
// image's folder into place.
#pragma once

#include <filesystem>
#include "../folder_lock.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

class OutputFolder {
public:
    // Creates the folder (or takes an empty one) and marks it as the output of a batch of
    // `input`, creates logs/ and .partial/ and takes the lock. What earlier batches left in
    // .partial/ stays until adopt_leftovers. Throws std::runtime_error, touching nothing, when the
    // folder holds files no batch wrote, holds another input folder's batch, or another batch
    // holds the lock.
    OutputFolder(std::filesystem::path root, const std::filesystem::path& input);
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

    // Deletes a partial folder and its note; of a folder marked as an image's, only what the batch
    // wrote (the user's files on their way into the image folder stay). Returns what was kept.
    std::vector<std::string> discard_partial(const std::filesystem::path& partial) const;

    // Marks `partial` as written by the batch (the mark lists its files), renames it to <stem>/,
    // replacing an earlier one only when that one carries the mark, and drops its note; then
    // syncs the folder, so the move survives a crash before the manifest says the image is done.
    // What the earlier folder holds that its mark does not prove the batch wrote (the user's
    // notes, or a result edited since) moves into the new one; returns those entries. Throws
    // std::runtime_error (also, leaving it as it is, when <stem>/ exists and was not written by a
    // batch, or holds a file of the user's with the name of a new result).
    std::vector<std::string> move_into_place(const std::filesystem::path& partial, const std::string& stem) const;

    // Removes .partial/ when nothing is left in it.
    void tidy() const;

    // The mark in a batch output folder and in each image folder a batch moved into place.
    static constexpr const char* kFolderMark = ".fieldflow-batch";
    static constexpr const char* kImageMark = ".fieldflow-batch-image";

private:
    std::filesystem::path root_;
    std::optional<FolderLock> lock_;
};

// For `--merge`: creates `root` and marks it as a batch's, or takes one a batch (or an earlier
// merge) marked, or an empty one. Throws std::runtime_error, touching nothing, when it holds
// files no batch wrote: the merge writes summary.json, summary.csv and index.html there.
void own_merge_output(const std::filesystem::path& root);

} // namespace fieldflow::host::batch
