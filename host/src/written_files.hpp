// Proof of what fieldflow wrote into a folder: a list of the files and folders it put there, each
// file with its size and modification time, kept in a mark file inside that folder. Whatever is
// not on the list, or no longer matches it (replaced or edited since), is the user's: it is never
// removed or replaced, only kept (and named).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fieldflow::host {

struct WrittenFiles {
    struct File {
        uintmax_t size = 0;
        int64_t mtime_ns = 0;
    };
    std::map<std::string, File> files; // relative path (generic form) -> what was written
    std::set<std::string> folders;     // relative paths of folders written
};

// Everything under `folder` now, except the entry named `mark` at its top: the list to keep
// in the mark. Names holding a newline are left off (they cannot be listed, so they stay the
// user's); links and special files too.
WrittenFiles list_written(const std::filesystem::path& folder, const std::string& mark);

// The list as text lines ("F SIZE MTIME PATH", "D PATH"), and back. Lines of another form are
// skipped: an unreadable line proves nothing, so what it named stays.
std::string written_files_text(const WrittenFiles& written);
WrittenFiles parse_written_files(const std::string& text);

// Whether the entry at `relative` under `folder` is what `written` lists there: a listed folder,
// or a regular file of the listed size and modification time.
bool proves(const WrittenFiles& written, const std::filesystem::path& folder, const std::string& relative);

// The top-most entries under `folder` that `written` does not prove fieldflow wrote (relative
// paths, in byte order), leaving out `mark` at its top. A listed folder is looked into; one not
// listed is the user's as a whole.
std::vector<std::string> foreign_entries(const std::filesystem::path& folder, const WrittenFiles& written,
                                         const std::string& mark);

// Removes from `folder` what `written` proves fieldflow wrote, the mark `mark` last, and the
// folder itself when nothing else is left. Returns the entries kept (foreign_entries), so the
// caller can say so; nothing of those is touched.
std::vector<std::string> remove_written(const std::filesystem::path& folder, const WrittenFiles& written,
                                        const std::string& mark);

// "a.txt, mydir/ and 3 more": names for a message.
std::string entry_list_text(const std::vector<std::string>& entries, const std::filesystem::path& folder);

} // namespace fieldflow::host
