#include "run_staging.hpp"

#include "batch/output_folder.hpp"
#include "file_path_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

namespace fieldflow::host {
namespace {

constexpr const char* kNote = ".fieldflow-attempt";   // in the staging folder: the work it is for
constexpr const char* kJournal = ".fieldflow-commit"; // in the staging folder: a commit under way

bool under(const std::string& identity, const std::string& folder) {
    return identity == folder || identity.rfind(folder + "/", 0) == 0;
}

std::string relative_to(const std::string& identity, const std::string& folder) {
    return identity == folder ? std::string() : identity.substr(folder.size() + 1);
}

// The path as spelled, without `.` parts or a trailing slash.
fs::path spelled(const std::string& path) {
    fs::path p = fs::path(path).lexically_normal();
    if (p.filename().empty() && p.has_parent_path()) p = p.parent_path();
    return p;
}

std::string read_text(const fs::path& file) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) return {};
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Writes `text` to `file` through a temporary file and a rename: it is whole or as it was.
void write_whole(const fs::path& file, const std::string& text) {
    const fs::path temporary = file.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) throw std::runtime_error("cannot write '" + file.string() + "'");
    }
    std::error_code ec;
    fs::rename(temporary, file, ec);
    if (ec) throw std::runtime_error("cannot write '" + file.string() + "': " + ec.message());
}

void sync_folder(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return; // best effort: the renames themselves have happened
    ::fsync(fd);
    ::close(fd);
}

bool exists_here(const fs::path& path) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(path, ec));
}

std::string value_text(const ParamValue& value) {
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>) return v;
            else if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
            else if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<std::string>>) {
                std::ostringstream text;
                for (const auto& item : v) text << '[' << item << ']';
                return text.str();
            } else {
                std::ostringstream text;
                text.precision(17);
                text << v;
                return text.str();
            }
        },
        value);
}

// The journal: the folders the committing run owned as a whole ("O <path>" lines, "O" alone for
// the root), then the list the root's mark held before it.
std::string journal_text(const std::set<std::string>& owned, const WrittenFiles& earlier) {
    std::string text;
    for (const std::string& folder : owned) text += "O" + (folder.empty() ? "" : " " + folder) + "\n";
    return text + written_files_text(earlier);
}

std::set<std::string> journal_owned(const std::string& text) {
    std::set<std::string> owned;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line == "O") owned.insert("");
        else if (line.rfind("O ", 0) == 0) owned.insert(line.substr(2));
    return owned;
}

bool in_owned(const std::string& relative, const std::set<std::string>& owned) {
    return std::any_of(owned.begin(), owned.end(), [&](const std::string& folder) {
        return folder.empty() || relative.rfind(folder + "/", 0) == 0;
    });
}

WrittenFiles staged_files(const fs::path& staging) {
    WrittenFiles incoming = list_written(staging, kNote);
    incoming.files.erase(kJournal);
    return incoming;
}

// Moves what `staging` holds into `root` (the conflicts checked, the journal written): the
// root's new mark first, then the files, then the earlier run's files in owned folders that this
// one did not write again, then the staging folder.
void move_into_place(const fs::path& root, const fs::path& staging, const std::set<std::string>& owned,
                     const WrittenFiles& earlier) {
    const WrittenFiles incoming = staged_files(staging);
    // A killed commit may have moved some files already: the mark it wrote proves them.
    const WrittenFiles current = parse_written_files(read_text(root / RunStaging::kMark));
    std::vector<std::string> stale;
    WrittenFiles mark;
    for (const WrittenFiles* list : {&earlier, &current})
        for (const auto& [path, file] : list->files) {
            if (!proves(*list, root, path)) continue;
            if (list == &earlier && in_owned(path, owned) && !incoming.files.count(path)) stale.push_back(path);
            else mark.files[path] = file;
        }
    for (const WrittenFiles* list : {&earlier, &current})
        for (const std::string& folder : list->folders)
            if (proves(*list, root, folder)) mark.folders.insert(folder);
    for (const auto& [path, file] : incoming.files) mark.files[path] = file;
    mark.folders.insert(incoming.folders.begin(), incoming.folders.end());
    for (const std::string& path : stale) mark.files.erase(path);
    write_whole(root / RunStaging::kMark, written_files_text(mark));

    std::error_code ec;
    for (const std::string& folder : incoming.folders) { // parents first: a set sorts "a" before "a/b"
        fs::create_directories(root / folder, ec);
        if (ec) throw std::runtime_error("cannot create '" + (root / folder).string() + "': " + ec.message());
    }
    for (const auto& [path, file] : incoming.files) {
        fs::rename(staging / path, root / path, ec);
        if (ec) throw std::runtime_error("cannot move '" + (staging / path).string() + "' to '" +
                                         (root / path).string() + "': " + ec.message());
    }
    for (const std::string& path : stale) fs::remove(root / path, ec);
    for (auto it = earlier.folders.rbegin(); it != earlier.folders.rend(); ++it)
        if (in_owned(*it, owned) && !incoming.folders.count(*it) && fs::is_empty(root / *it, ec))
            fs::remove(root / *it, ec); // empty: only the earlier run's files were in it
    sync_folder(root);
    fs::remove(staging / kNote, ec);
    fs::remove(staging / kJournal, ec);
    for (auto it = incoming.folders.rbegin(); it != incoming.folders.rend(); ++it) fs::remove(staging / *it, ec);
    fs::remove(staging, ec);
}

// A killed writer's temporary files (atomic_write's ".<stem>.tmp-...", the host's "*.tmp-side",
// this file's "*.tmp"): never a result, so never moved into place.
void remove_temporaries(const fs::path& staging) {
    std::error_code ec;
    std::vector<fs::path> found;
    for (auto it = fs::recursive_directory_iterator(staging, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool temporary = (name.size() > 1 && name[0] == '.' && name.find(".tmp-") != std::string::npos) ||
                               name.ends_with(".tmp-side") || name.ends_with(".tmp");
        if (temporary && it->is_regular_file(ec)) found.push_back(it->path());
    }
    for (const fs::path& file : found) fs::remove(file, ec);
}

} // namespace

RunStaging::RunStaging(const Graph& graph) {
    struct Entry {
        size_t node, param;
        std::string identity;
        bool folder;
    };
    std::vector<Entry> entries;
    std::vector<std::pair<std::string, fs::path>> candidates; // a folder holding written paths
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
        const PlannedNode& node = graph.nodes[n];
        for (size_t p = 0; p < node.params.size(); ++p) {
            const ResolvedParam& param = node.params[p];
            const auto* path = std::get_if<std::string>(&param.value);
            if (!param.info || !path || path->empty() ||
                !(param.info->flags & (FF_PARAM_WRITES_FILE | FF_PARAM_SIDE_OUTPUT)))
                continue;
            // A side-output param that writes no file of its own names a folder the node owns.
            const bool folder = !(param.info->flags & FF_PARAM_WRITES_FILE);
            const std::string identity = file_identity(*path);
            entries.push_back({n, p, identity, folder});
            if (folder) candidates.emplace_back(identity, spelled(*path));
            else {
                const fs::path parent = spelled(*path).parent_path();
                candidates.emplace_back(fs::path(identity).parent_path().string(), parent.empty() ? "." : parent);
            }
        }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
    for (const auto& candidate : candidates) {
        const std::string& identity = candidate.first;
        const bool inside = std::any_of(roots_.begin(), roots_.end(),
                                        [&](const Root& r) { return under(identity, r.identity); });
        if (!inside) roots_.push_back({candidate.second, identity, {}, {}, {}});
    }
    for (const Entry& e : entries) {
        for (size_t r = 0; r < roots_.size(); ++r) {
            if (!under(e.identity, roots_[r].identity)) continue;
            const std::string relative = relative_to(e.identity, roots_[r].identity);
            if (e.folder) roots_[r].owned.insert(relative);
            else {
                roots_[r].files.insert(relative);
                if (graph.nodes[e.node].overwrite) roots_[r].replaceable.insert(relative);
            }
            written_.push_back({e.node, e.param, r, relative});
            break;
        }
    }
}

std::vector<fs::path> RunStaging::roots() const {
    std::vector<fs::path> out;
    for (const Root& r : roots_) out.push_back(r.path);
    return out;
}

std::vector<fs::path> RunStaging::subfolders() const {
    std::set<fs::path> out;
    for (const Root& r : roots_) {
        for (const std::string& folder : r.owned)
            if (!folder.empty()) out.insert(r.path / folder);
        for (const std::string& file : r.files)
            if (fs::path(file).has_parent_path()) out.insert(r.path / fs::path(file).parent_path());
    }
    return {out.begin(), out.end()};
}

fs::path RunStaging::staged(const Root& root, const std::string& relative) const {
    return relative.empty() ? root.path / kStaging : root.path / kStaging / relative;
}

void RunStaging::redirect(Graph& graph) const {
    std::set<std::pair<size_t, size_t>> done;
    for (const Written& w : written_) {
        graph.nodes[w.node].params[w.param].value = staged(roots_[w.root], w.relative).string();
        done.insert({w.node, w.param});
    }
    // Other params that name a written path (or a path in an owned folder), and do not read it as
    // a file the graph had before the run (`overwrite: true`), see the run's own.
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        for (size_t p = 0; p < graph.nodes[n].params.size(); ++p) {
            ResolvedParam& param = graph.nodes[n].params[p];
            auto* path = std::get_if<std::string>(&param.value);
            if (done.count({n, p}) || !param.info || !path || path->empty() ||
                (param.info->flags & FF_PARAM_READS_FILE))
                continue;
            const std::string identity = file_identity(*path);
            for (const Root& root : roots_) {
                if (!under(identity, root.identity)) continue;
                const std::string relative = relative_to(identity, root.identity);
                if (root.files.count(relative) || root.owned.count(relative) || in_owned(relative, root.owned))
                    param.value = staged(root, relative).string();
                break;
            }
        }
}

std::vector<std::string> RunStaging::prepare(const std::string& attempt) const {
    std::vector<std::string> notes;
    // A commit a killed run left: finished first, as it would have been.
    for (const Root& root : roots_) {
        const fs::path staging = root.path / kStaging;
        if (!exists_here(staging)) continue;
        std::error_code ec;
        if (!fs::is_directory(fs::symlink_status(staging, ec)) || !fs::is_regular_file(staging / kNote, ec))
            throw std::runtime_error("'" + staging.string() + "' is where this run stages its results, and it was "
                                     "not made by fieldflow run; it is left as it is: move it away");
        if (fs::is_regular_file(staging / kJournal, ec)) {
            const std::string journal = read_text(staging / kJournal);
            move_into_place(root.path, staging, journal_owned(journal), parse_written_files(journal));
            notes.push_back("moved into '" + root.path.string() +
                            "' the results of an earlier run that was stopped while it moved them there");
        }
    }
    // A file of the user's where the run writes: refused before anything runs.
    std::vector<std::string> refused;
    for (const Root& root : roots_) {
        const WrittenFiles mark = parse_written_files(read_text(root.path / kMark));
        for (const std::string& file : root.files)
            if (!root.replaceable.count(file) && exists_here(root.path / file) && !proves(mark, root.path, file))
                refused.push_back((root.path / file).string());
        std::error_code ec;
        for (const std::string& folder : root.owned)
            if (exists_here(root.path / folder) && !fs::is_directory(fs::symlink_status(root.path / folder, ec)))
                refused.push_back((root.path / folder).string());
    }
    if (!refused.empty())
        throw std::runtime_error("'" + refused[0] + "'" +
                                 (refused.size() > 1 ? " (and " + std::to_string(refused.size() - 1) + " more)" : "") +
                                 " was not written by fieldflow run (or was changed since), and this run writes "
                                 "there; it is left as it is: move it away, or give the run another output folder");
    for (const Root& root : roots_) {
        const fs::path staging = root.path / kStaging;
        std::error_code ec;
        if (exists_here(staging)) {
            if (read_text(staging / kNote) == attempt) {
                remove_temporaries(staging);
                if (!staged_files(staging).files.empty())
                    notes.push_back("taking up the results an interrupted run of this work left in '" +
                                    staging.string() + "'");
                continue;
            }
            fs::remove_all(staging, ec); // another work's: it holds only what that run wrote
        }
        fs::create_directories(staging, ec);
        if (ec) throw std::runtime_error("cannot create '" + staging.string() + "': " + ec.message());
        write_whole(staging / kNote, attempt);
    }
    return notes;
}

std::string RunStaging::commit() const {
    // Every root checked before any is touched: the results go into place all, or none.
    for (const Root& root : roots_) {
        const fs::path staging = root.path / kStaging;
        const WrittenFiles earlier = parse_written_files(read_text(root.path / kMark));
        const WrittenFiles incoming = staged_files(staging);
        std::error_code ec;
        for (const auto& [path, file] : incoming.files)
            if (exists_here(root.path / path) && !root.replaceable.count(path) && !proves(earlier, root.path, path))
                return "'" + (root.path / path).string() + "' was not written by fieldflow run (or was changed "
                       "since), and this run wrote a file of that name; nothing was moved into place: the results wait in '" +
                       staging.string() + "': move that file away and run the same command again";
        for (const std::string& folder : incoming.folders)
            if (exists_here(root.path / folder) && !fs::is_directory(fs::symlink_status(root.path / folder, ec)))
                return "'" + (root.path / folder).string() + "' is not a folder, and this run writes a folder there; "
                       "nothing was moved into place: the results wait in '" + staging.string() +
                       "': move it away and run the same command again";
    }
    // Every journal written before any file moves: a run killed in between is finished whole.
    try {
        std::vector<WrittenFiles> earlier;
        for (const Root& root : roots_) {
            earlier.push_back(parse_written_files(read_text(root.path / kMark)));
            write_whole(root.path / kStaging / kJournal, journal_text(root.owned, earlier.back()));
        }
        for (size_t r = 0; r < roots_.size(); ++r)
            move_into_place(roots_[r].path, roots_[r].path / kStaging, roots_[r].owned, earlier[r]);
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::string attempt_text(const Graph& graph) {
    std::string text = "graph " + file_identity(graph.file) + "\n";
    for (const PlannedNode& node : graph.nodes) {
        text += "node " + node.name + " " + (node.op ? node.op->name : std::string("?")) + "\n";
        for (const ResolvedParam& p : node.params)
            if (p.info) text += "  " + p.info->name + "=" + value_text(p.value) + "\n";
    }
    return text;
}

bool staged_by_batch(const fs::path& folder) {
    const fs::path path = spelled(folder.string());
    std::error_code ec;
    return path.parent_path().filename() == ".partial" &&
           fs::is_regular_file(path.string() + ".attempt", ec) &&
           fs::is_regular_file(path.parent_path().parent_path() / batch::OutputFolder::kFolderMark, ec);
}

} // namespace fieldflow::host
