// `fieldflow examples`: the example graphs installed with the program, runnable by name
// (`fieldflow run lake`), each with the first sentence of its description.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/graph_file.hpp>
#include <fieldflow/host/graph_search.hpp>
#include <fieldflow/host/help_text.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace fieldflow::host {
namespace {

std::unique_ptr<CommandLine> examples_table() {
    auto cl = std::make_unique<CommandLine>(
        "examples", "fieldflow examples [--json]",
        "Lists the example graphs installed with fieldflow, which `run`, `check` and `batch` find "
        "by name from any folder:\n\n"
        "  fieldflow run lake --set input=photo.jpg\n\n"
        "A graph is looked for as given, then with .yaml added, then among these examples. "
        "`fieldflow run NAME --dry-run` shows one's nodes, and its file's vars are what --set "
        "changes.");
    add_json_option(*cl);
    return cl;
}

// The description's first phrase, on one line: up to its first sentence's end or parenthesis,
// at most about a line.
std::string first_phrase(std::string text) {
    for (char& c : text)
        if (c == '\n') c = ' ';
    text.resize(std::min({text.find(". "), text.find(" ("), text.size()}));
    constexpr size_t kMax = 72;
    if (text.size() > kMax) text = text.substr(0, text.rfind(' ', kMax)) + " ...";
    return text;
}

int examples_main(CommandLine& cl, const std::vector<std::string>&) {
    const std::string dir = examples_dir();
    const bool json = cl.values.count("json") > 0;
    nlohmann::json list = nlohmann::json::array();
    std::string text;
    const size_t width = text_width(stdout);
    for (const std::string& name : example_names()) {
        const std::string path = (std::filesystem::path(dir) / (name + ".yaml")).string();
        Diagnostics diags(path);
        const GraphAst ast = parse_graph_file(path, diags);
        const std::string about = first_phrase(ast.description);
        list.push_back({{"name", name}, {"file", path}, {"description", ast.description}});
        std::string row = "  " + name;
        row.resize(std::max<size_t>(row.size() + 2, 20), ' ');
        text += row + wrap_text(about, width, 20, 20).substr(20) + "\n";
    }
    if (json) {
        std::printf("%s\n", nlohmann::json({{"folder", dir}, {"examples", list}}).dump(2).c_str());
        return kExitOk;
    }
    if (dir.empty()) {
        std::fprintf(stderr, "fieldflow examples: no installed examples were found (looked in "
                             "share/fieldflow/graphs beside the program)\n");
        return kExitInvalid;
    }
    std::printf("example graphs in %s (run one by name: fieldflow run lake --set "
                "input=photo.jpg):\n%s", dir.c_str(), text.c_str());
    return kExitOk;
}

const TableCommandRegistration registration{
    "examples", "list the installed example graphs (run one by name)", examples_table, examples_main};

} // namespace
} // namespace fieldflow::host
