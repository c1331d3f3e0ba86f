#include "output_folder.hpp"

#include "../written_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
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

// The mark's content: which input folder the batch writing this folder reads (a merge's mark
// has no input line).
std::string mark_text(const fs::path& input) {
    return "fieldflow batch output\n" + (input.empty() ? std::string() : "input " + input.string() + "\n");
}

// Makes `root` the batch's own: creates it and marks it, or finds it empty (then marks it) or
// marked for the same input folder (for a merge, `input` empty: marked by any batch). A folder
// with anything else in it is refused untouched: the batch replaces its own image folders and
// summaries, so a user's files of the same names must never be there.
void take_ownership(const fs::path& root, const fs::path& input) {
    std::error_code ec;
    const fs::path mark = root / OutputFolder::kFolderMark;
    if (fs::exists(root, ec)) {
        if (!fs::is_directory(root, ec))
            throw std::runtime_error("--output '" + root.string() + "' exists and is not a folder");
        if (fs::is_regular_file(mark, ec) && input.empty()) return;
        if (fs::is_regular_file(mark, ec)) {
            std::ifstream in(mark, std::ios::binary);
            std::string header, line;
            std::getline(in, header);
            std::getline(in, line);
            if (line == "input " + input.string()) return;
            throw std::runtime_error("'" + root.string() + "' holds the results of a batch of '" +
                                     (line.rfind("input ", 0) == 0 ? line.substr(6) : "another folder") +
                                     "', not of '" + input.string() +
                                     "': give another --output (or delete that folder to start over)");
        }
        std::string first; // the first name in byte order, so the message is the same every time
        for (const auto& entry : fs::directory_iterator(root, ec)) {
            const std::string name = entry.path().filename().string();
            if (first.empty() || name < first) first = name;
        }
        if (ec) throw std::runtime_error("cannot read output folder '" + root.string() + "': " + ec.message());
        if (!first.empty())
            throw std::runtime_error("'" + root.string() + "' already holds files fieldflow batch did not write "
                                     "(e.g. '" + first + "'); a batch writes only into a new or empty folder, "
                                     "which it marks as its own: give another --output");
    }
    fs::create_directories(root, ec);
    if (ec) throw std::runtime_error("cannot create output folder '" + root.string() + "': " + ec.message());
    std::ofstream out(mark, std::ios::binary | std::ios::trunc);
    out << mark_text(input);
    out.close();
    if (!out) throw std::runtime_error("cannot write '" + mark.string() + "'");
}

// The image mark: the stem, then the list of what the batch moved into place (written_files.hpp).
// An earlier version's mark holds only the stem: then the batch's files are taken to be those the
// new results replace, everything else is the user's.
std::string read_mark(const fs::path& folder) {
    std::ifstream in(folder / OutputFolder::kImageMark, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

WrittenFiles written_by_batch(const fs::path& folder, const fs::path& replacement) {
    const std::string text = read_mark(folder);
    const size_t list = text.find('\n');
    if (list != std::string::npos && list + 1 < text.size()) return parse_written_files(text.substr(list + 1));
    WrittenFiles legacy;
    if (replacement.empty()) return legacy;
    const WrittenFiles now = list_written(folder, OutputFolder::kImageMark);
    const WrittenFiles incoming = list_written(replacement, OutputFolder::kImageMark);
    for (const auto& [path, file] : now.files)
        if (incoming.files.count(path)) legacy.files.emplace(path, file);
    for (const std::string& f : now.folders)
        if (incoming.folders.count(f)) legacy.folders.insert(f);
    return legacy;
}

} // namespace

OutputFolder::OutputFolder(fs::path root, const fs::path& input) : root_(std::move(root)) {
    take_ownership(root_, input);
    std::error_code ec;
    fs::create_directories(root_ / "logs", ec);
    if (!ec) fs::create_directories(root_ / ".partial", ec);
    if (ec) throw std::runtime_error("cannot create output folder '" + root_.string() + "': " + ec.message());
    lock_.emplace(root_ / ".lock", "fieldflow batch --output " + root_.string(),
                  "another batch is writing to '" + root_.string() + "'");
}

OutputFolder::~OutputFolder() = default;

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
        if (!keep && fs::exists(fs::symlink_status(entry, ec))) discard_partial(entry);
    }
    return adopted;
}

std::vector<std::string> OutputFolder::discard_partial(const fs::path& partial) const {
    std::error_code ec;
    std::vector<std::string> kept;
    // A marked folder may hold the user's files on their way into the image folder (see
    // move_into_place): only what the batch wrote goes.
    if (fs::is_regular_file(partial / kImageMark, ec))
        kept = remove_written(partial, written_by_batch(partial, {}), kImageMark);
    else
        fs::remove_all(partial, ec);
    fs::remove(note_of(partial), ec);
    return kept;
}

std::vector<std::string> OutputFolder::move_into_place(const fs::path& partial, const std::string& stem) const {
    const fs::path target = final_for(stem);
    std::error_code ec;
    // The mark lists what this run wrote, before anything of the user's joins it.
    std::ofstream(partial / kImageMark, std::ios::binary | std::ios::trunc)
        << stem << '\n' << written_files_text(list_written(partial, kImageMark));
    if (!fs::is_regular_file(partial / kImageMark, ec))
        throw std::runtime_error("cannot write '" + (partial / kImageMark).string() + "'");
    fs::path old;
    std::vector<std::string> kept;
    WrittenFiles earlier;
    if (fs::exists(fs::symlink_status(target, ec))) {
        if (!fs::is_directory(fs::symlink_status(target, ec)) || !fs::is_regular_file(target / kImageMark, ec))
            throw std::runtime_error("'" + target.string() + "' exists and was not written by fieldflow batch; "
                                     "it is left as it is: move it away to get this image's results there");
        // What the user added to the earlier results (or changed since) moves into the new ones;
        // one with the name of a new result stops the move, everything left as it was.
        earlier = written_by_batch(target, partial);
        kept = foreign_entries(target, earlier, kImageMark);
        for (const std::string& entry : kept)
            if (fs::exists(fs::symlink_status(partial / entry, ec)))
                throw std::runtime_error("'" + (target / entry).string() + "' was not written by fieldflow batch "
                                         "(or was changed since) and the new results hold a file of that name; "
                                         "'" + target.string() + "' is left as it is: move '" + entry +
                                         "' away to get this image's results there");
        for (const std::string& entry : kept) {
            const fs::path to = partial / entry;
            fs::create_directories(to.parent_path(), ec);
            fs::rename(target / entry, to, ec);
            if (ec) throw std::runtime_error("cannot keep '" + (target / entry).string() + "' with the new results: " +
                                             ec.message());
        }
        // rename() will not replace a non-empty folder: move the old one aside first.
        old = root_ / ".partial" / (stem + ".old." + random_suffix());
        fs::rename(target, old, ec);
        if (ec) throw std::runtime_error("cannot replace '" + target.string() + "': " + ec.message());
    }
    fs::rename(partial, target, ec);
    if (ec) throw std::runtime_error("cannot move outputs to '" + target.string() + "': " + ec.message());
    fs::remove(note_of(partial), ec);
    sync_folder(root_);
    if (!old.empty()) remove_written(old, earlier, kImageMark);
    return kept;
}

void OutputFolder::tidy() const {
    std::error_code ec;
    if (fs::is_empty(root_ / ".partial", ec) && !ec) fs::remove(root_ / ".partial", ec);
}

void own_merge_output(const fs::path& root) { take_ownership(root, fs::path()); }

} // namespace fieldflow::host::batch
