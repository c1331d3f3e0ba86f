#include <fieldflow/host/batch/inputs.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace fs = std::filesystem;

namespace fieldflow::host::batch {
namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool safe_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

std::string sanitize(const std::string& text) {
    std::string out;
    for (char c : text) out += safe_char(c) ? c : '_';
    if (out.empty()) out = "image";
    if (out.front() == '.') out.front() = '_'; // never hidden, never "." or ".."
    return out;
}

// Names in the output folder that belong to the batch itself.
bool reserved(const std::string& stem) {
    static const std::set<std::string> names = {"logs", "index.html", "summary.csv",
                                                "summary.json", "manifest.jsonl"};
    return names.count(lower(stem)) > 0;
}

bool hidden(const std::string& relative) {
    if (relative.empty()) return false;
    if (relative.front() == '.') return true;
    return relative.find("/.") != std::string::npos;
}

bool glob_matches(const std::string& glob, const std::string& text) {
    // FNM_PERIOD: a leading '.' must be named, as in a shell.
    return ::fnmatch(glob.c_str(), text.c_str(), FNM_PERIOD) == 0;
}

// The path with symbolic links and `..` resolved as far as it exists, without a trailing '/'.
fs::path resolved(const fs::path& path) {
    std::error_code ec;
    fs::path out = fs::weakly_canonical(fs::absolute(path), ec);
    if (ec) out = fs::absolute(path).lexically_normal();
    if (out.filename().empty() && out.has_parent_path() && out != out.root_path()) out = out.parent_path();
    return out;
}

// `inner` is `outer` or lies under it (both resolved).
bool within(const fs::path& inner, const fs::path& outer) {
    auto i = inner.begin();
    for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
        if (i == inner.end() || *i != *o) return false;
    return true;
}

} // namespace

std::string Shard::text() const { return std::to_string(index) + "/" + std::to_string(count); }

std::optional<Shard> parse_shard(const std::string& text) {
    const size_t slash = text.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return std::nullopt;
    const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
    auto digits = [](const std::string& s) {
        return s.size() <= 9 && std::all_of(s.begin(), s.end(), [](char c) {
                   return std::isdigit(static_cast<unsigned char>(c));
               });
    };
    if (!digits(a) || !digits(b)) return std::nullopt;
    Shard shard{static_cast<unsigned>(std::stoul(a)), static_cast<unsigned>(std::stoul(b))};
    if (shard.count == 0 || shard.index >= shard.count) return std::nullopt;
    return shard;
}

bool is_image_extension(const std::string& extension) {
    static const std::set<std::string> known = {".png", ".jpg", ".jpeg", ".jpe", ".tif", ".tiff",
                                                ".bmp", ".dib", ".ppm", ".pgm", ".pbm", ".pnm",
                                                ".webp", ".exr", ".hdr", ".pic", ".jp2", ".sr",
                                                ".ras", ".pxm"};
    return known.count(lower(extension)) > 0;
}

std::vector<BatchInput> list_batch_inputs(const fs::path& dir, const std::string& glob,
                                          const fs::path& exclude) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw std::runtime_error("'" + dir.string() + "' is not a folder" +
                                 (ec ? ": " + ec.message() : std::string()));
    const bool recursive = glob.find('/') != std::string::npos;
    std::error_code same;
    auto consider = [&](const fs::directory_entry& entry, std::vector<BatchInput>& out) {
        std::error_code e;
        if (!entry.is_regular_file(e)) return; // follows links; folders, sockets... are skipped
        const std::string relative = entry.path().lexically_relative(dir).generic_string();
        const bool picked = glob.empty()
                                ? is_image_extension(entry.path().extension().string()) && !hidden(relative)
                                : glob_matches(glob, recursive ? relative : entry.path().filename().string());
        if (picked) out.push_back({entry.path(), relative, {}, 0});
    };

    std::vector<BatchInput> inputs;
    if (recursive) {
        fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
        if (ec) throw std::runtime_error("cannot read folder '" + dir.string() + "': " + ec.message());
        for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) throw std::runtime_error("cannot read folder '" + dir.string() + "': " + ec.message());
            std::error_code e;
            if (it->is_directory(e) && !exclude.empty() && fs::equivalent(it->path(), exclude, same)) {
                it.disable_recursion_pending();
                continue;
            }
            consider(*it, inputs);
        }
    } else {
        fs::directory_iterator it(dir, ec);
        if (ec) throw std::runtime_error("cannot read folder '" + dir.string() + "': " + ec.message());
        for (; it != fs::directory_iterator(); it.increment(ec)) {
            if (ec) throw std::runtime_error("cannot read folder '" + dir.string() + "': " + ec.message());
            consider(*it, inputs);
        }
    }
    std::sort(inputs.begin(), inputs.end(),
              [](const BatchInput& a, const BatchInput& b) { return a.relative < b.relative; });
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i].index = i;
    assign_stems(inputs);
    return inputs;
}

void assign_stems(std::vector<BatchInput>& inputs) {
    // 1. The relative path without its extension, made safe.
    std::vector<std::string> stems;
    std::map<std::string, int> uses;
    for (const BatchInput& in : inputs) {
        const fs::path rel(in.relative);
        const std::string base = (rel.parent_path() / rel.stem()).generic_string();
        stems.push_back(sanitize(base));
        ++uses[lower(stems.back())]; // case-insensitive: the output may be on such a filesystem
    }
    // 2. Names that clash take their extension.
    for (size_t i = 0; i < inputs.size(); ++i) {
        if (uses[lower(stems[i])] < 2) continue;
        const std::string ext = fs::path(inputs[i].relative).extension().string();
        stems[i] += "_" + (ext.size() > 1 ? sanitize(ext.substr(1)) : std::string("noext"));
    }
    // 3. Any clash left (or a reserved name) takes a counter, in list order.
    std::set<std::string> taken;
    for (size_t i = 0; i < inputs.size(); ++i) {
        std::string stem = stems[i];
        for (int n = 2; taken.count(lower(stem)) || reserved(stem); ++n)
            stem = stems[i] + "-" + std::to_string(n);
        taken.insert(lower(stem));
        inputs[i].stem = stem;
    }
}

std::optional<std::string> folder_overlap(const fs::path& input, const fs::path& output) {
    const fs::path in = resolved(input), out = resolved(output);
    const std::string in_text = "'" + input.string() + "'", out_text = "'" + output.string() + "'";
    if (in == out)
        return "--input " + in_text + " and --output " + out_text + " are the same folder; give the "
               "results a folder of their own, outside the input folder";
    if (within(out, in))
        return "--output " + out_text + " is inside --input " + in_text + ": a later batch would take "
               "the results as images; choose an output folder outside the input folder";
    if (within(in, out))
        return "--input " + in_text + " is inside --output " + out_text + ": the batch creates and "
               "replaces folders there; keep the images outside the output folder";
    return std::nullopt;
}

std::vector<BatchInput> select_shard(const std::vector<BatchInput>& all, const Shard& shard) {
    std::vector<BatchInput> out;
    for (const BatchInput& in : all)
        if (in.index % shard.count == shard.index) out.push_back(in);
    return out;
}

} // namespace fieldflow::host::batch
