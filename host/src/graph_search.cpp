#include <fieldflow/host/graph_search.hpp>
#include <fieldflow/host/names.hpp>
#include <fieldflow/host/plugin_loader.hpp>

#include <algorithm>
#include <filesystem>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

bool is_file(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

bool has_yaml_extension(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

} // namespace

std::string examples_dir() {
    std::error_code ec;
    const fs::path installed = (fs::path(executable_dir()) / ".." / "share" / "fieldflow" / "graphs").lexically_normal();
    if (fs::is_directory(installed, ec)) return installed.string();
#ifdef FF_SOURCE_GRAPHS_DIR
    if (fs::is_directory(FF_SOURCE_GRAPHS_DIR, ec)) return FF_SOURCE_GRAPHS_DIR;
#endif
    return "";
}

std::vector<std::string> example_names() {
    std::vector<std::string> names;
    const std::string dir = examples_dir();
    std::error_code ec;
    if (dir.empty()) return names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
        if (is_file(e.path()) && has_yaml_extension(e.path())) names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::optional<std::string> find_graph(const std::string& name) {
    // Anything there by that name is what was meant: a folder or a FIFO gets the loader's own
    // message about it.
    std::error_code ec;
    if (name == "-" || fs::exists(fs::symlink_status(name, ec))) return name;
    const fs::path given(name);
    std::vector<fs::path> candidates;
    if (!has_yaml_extension(given)) candidates.push_back(name + ".yaml");
    // An example by its name, or by the path it has in the source tree (graphs/lake.yaml).
    const std::string dir = examples_dir();
    if (!dir.empty() && !given.filename().empty()) {
        const fs::path in_examples = fs::path(dir) / given.filename();
        candidates.push_back(in_examples);
        if (!has_yaml_extension(given)) candidates.push_back(in_examples.string() + ".yaml");
    }
    for (const fs::path& c : candidates)
        if (is_file(c)) return c.string();
    return std::nullopt;
}

std::string not_found_message(const std::string& name) {
    const std::string dir = examples_dir();
    if (dir.empty()) return "note: no installed examples were found to look for '" + name + "' among";
    const std::vector<std::string> names = example_names();
    const std::string guess = did_you_mean(fs::path(name).stem().string(), names);
    return "note: '" + name + "' is not among the examples in " + dir + " either" +
           (guess.empty() ? " (" + join(names, ", ") + "; `fieldflow examples` lists them)" : guess);
}

} // namespace fieldflow::host
