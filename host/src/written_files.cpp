#include "written_files.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <sstream>

namespace fs = std::filesystem;

namespace fieldflow::host {
namespace {

std::string join(const std::string& parent, const std::string& name) {
    return parent.empty() ? name : parent + "/" + name;
}

// The names in `dir`, in byte order (so lists and messages are the same every time).
std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

int64_t mtime_ns(const struct stat& st) { return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec; }

void list_into(const fs::path& dir, const std::string& relative, WrittenFiles& out) {
    for (const std::string& name : names_in(dir)) {
        if (name.find('\n') != std::string::npos) continue;
        const std::string path = join(relative, name);
        struct stat st {};
        if (::lstat((dir / name).c_str(), &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            out.folders.insert(path);
            list_into(dir / name, path, out);
        } else if (S_ISREG(st.st_mode)) {
            out.files[path] = {uintmax_t(st.st_size), mtime_ns(st)};
        }
    }
}

// Whether `path` (lstat'ed) is what `written` lists at `relative`.
bool proven(const WrittenFiles& written, const std::string& relative, const struct stat& st) {
    if (S_ISDIR(st.st_mode)) return written.folders.count(relative) > 0;
    if (!S_ISREG(st.st_mode)) return false;
    const auto it = written.files.find(relative);
    return it != written.files.end() && it->second.size == uintmax_t(st.st_size) &&
           it->second.mtime_ns == mtime_ns(st);
}

void foreign_into(const fs::path& dir, const std::string& relative, const WrittenFiles& written,
                  const std::string& mark, std::vector<std::string>& out) {
    for (const std::string& name : names_in(dir)) {
        if (relative.empty() && name == mark) continue;
        const std::string path = join(relative, name);
        struct stat st {};
        if (::lstat((dir / name).c_str(), &st) != 0) continue; // gone meanwhile
        if (!proven(written, path, st)) out.push_back(path);
        else if (S_ISDIR(st.st_mode)) foreign_into(dir / name, path, written, mark, out);
    }
}

// Removes what is proven written under `dir`; true when `dir` is left empty (the mark aside).
bool remove_into(const fs::path& dir, const std::string& relative, const WrittenFiles& written,
                 const std::string& mark) {
    bool empty = true;
    for (const std::string& name : names_in(dir)) {
        if (relative.empty() && name == mark) continue;
        const std::string path = join(relative, name);
        struct stat st {};
        if (::lstat((dir / name).c_str(), &st) != 0) continue;
        std::error_code ec;
        if (!proven(written, path, st)) empty = false;
        else if (S_ISDIR(st.st_mode)) {
            if (remove_into(dir / name, path, written, mark)) fs::remove(dir / name, ec);
            empty = empty && !ec && !fs::exists(fs::symlink_status(dir / name, ec));
        } else {
            fs::remove(dir / name, ec);
            empty = empty && !ec;
        }
    }
    return empty;
}

} // namespace

WrittenFiles list_written(const fs::path& folder, const std::string& mark) {
    WrittenFiles out;
    list_into(folder, "", out);
    out.files.erase(mark);
    out.folders.erase(mark);
    for (auto it = out.files.begin(); it != out.files.end();) // the mark's folder, if it is one
        it = it->first.rfind(mark + "/", 0) == 0 ? out.files.erase(it) : std::next(it);
    return out;
}

std::string written_files_text(const WrittenFiles& written) {
    std::string text;
    for (const std::string& folder : written.folders) text += "D " + folder + "\n";
    for (const auto& [path, file] : written.files)
        text += "F " + std::to_string(file.size) + " " + std::to_string(file.mtime_ns) + " " + path + "\n";
    return text;
}

WrittenFiles parse_written_files(const std::string& text) {
    WrittenFiles out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("D ", 0) == 0 && line.size() > 2) {
            out.folders.insert(line.substr(2));
        } else if (line.rfind("F ", 0) == 0) {
            std::istringstream fields(line.substr(2));
            WrittenFiles::File file;
            if (!(fields >> file.size >> file.mtime_ns) || fields.get() != ' ') continue;
            std::string path;
            std::getline(fields, path);
            if (!path.empty()) out.files[path] = file;
        }
    }
    return out;
}

bool proves(const WrittenFiles& written, const fs::path& folder, const std::string& relative) {
    struct stat st {};
    return ::lstat((folder / relative).c_str(), &st) == 0 && proven(written, relative, st);
}

std::vector<std::string> foreign_entries(const fs::path& folder, const WrittenFiles& written, const std::string& mark) {
    std::vector<std::string> out;
    foreign_into(folder, "", written, mark, out);
    return out;
}

std::vector<std::string> remove_written(const fs::path& folder, const WrittenFiles& written, const std::string& mark) {
    std::vector<std::string> kept = foreign_entries(folder, written, mark);
    if (remove_into(folder, "", written, mark) && kept.empty()) {
        std::error_code ec;
        fs::remove(folder / mark, ec);
        fs::remove(folder, ec);
    }
    return kept;
}

std::string entry_list_text(const std::vector<std::string>& entries, const fs::path& folder) {
    std::string text;
    const size_t shown = std::min<size_t>(entries.size(), 5);
    for (size_t i = 0; i < shown; ++i) {
        std::error_code ec;
        const bool is_folder = fs::is_directory(fs::symlink_status(folder / entries[i], ec));
        text += (i ? ", " : "") + std::string("'") + entries[i] + (is_folder ? "/" : "") + "'";
    }
    if (entries.size() > shown) text += " and " + std::to_string(entries.size() - shown) + " more";
    return text;
}

} // namespace fieldflow::host
