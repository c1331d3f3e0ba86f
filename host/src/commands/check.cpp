// `fieldflow check GRAPH...`: validate graph files without running anything.
#include "graph_command.hpp"

#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/graph_search.hpp>
#include <fieldflow/host/validate.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>

namespace fieldflow::host {
namespace {

std::unique_ptr<CommandLine> check_table() {
    auto cl = std::make_unique<CommandLine>(
        "check", "fieldflow check GRAPH... [--set NAME=VALUE]... [--plugin FILE]... [--json]",
        "Validates each GRAPH file, or installed example by name (syntax, ops, params, inputs, types, cycles, variables, and that "
        "the images it reads exist and are images) without running it. Every error is reported as "
        "FILE:LINE:COL: error: MESSAGE; the --set values apply to every graph. A node that trains adds a note: its steps x batch and a rough time on the device the run would pick. Exit code: 0 when "
        "every graph is valid, 2 otherwise.");
    add_positional(*cl, "graph", "graph files", -1);
    add_set_option(*cl);
    add_plugin_option(*cl);
    add_json_option(*cl);
    return cl;
}

nlohmann::json errors_json(const Diagnostics& diags) {
    nlohmann::json errors = nlohmann::json::array();
    for (const Diagnostic& d : diags.sorted())
        errors.push_back({{"line", d.pos.line}, {"column", d.pos.column}, {"message", d.message}});
    return errors;
}

int check_main(CommandLine& cl, const std::vector<std::string>&) {
    if (!cl.values.count("graph"))
        return cl.usage_error("no graph file given: name one or more graph files (YAML), e.g. "
                              "`fieldflow check lake`");
    auto sets = set_values(cl);
    if (!sets) return kExitInvalid;
    const bool json = cl.values.count("json") > 0;

    OpRegistry registry;
    if (!load_registry(registry, cl)) return kExitInvalid;
    nlohmann::json report = {{"ok", true}, {"graphs", nlohmann::json::array()}};
    size_t failed = 0;
    const auto paths = cl.values["graph"].as<std::vector<std::string>>();
    for (const std::string& named : paths) {
        const std::optional<std::string> found = find_graph(named);
        const std::string path = found.value_or(named); // a missing one: the loader says so
        Diagnostics diags(path);
        auto graph = load_graph(path, *sets, registry, diags);
        if (!graph) ++failed;
        if (json) {
            nlohmann::json entry = {{"file", path}, {"ok", graph.has_value()}, {"errors", errors_json(diags)}};
            if (graph) {
                entry["nodes"] = graph->nodes.size();
                nlohmann::json warnings = nlohmann::json::array();
                for (const Diagnostic& d : graph->warnings)
                    warnings.push_back({{"line", d.pos.line}, {"column", d.pos.column}, {"message", d.message}});
                entry["warnings"] = std::move(warnings);
                nlohmann::json notes = nlohmann::json::array();
                for (const Diagnostic& d : graph->notes)
                    notes.push_back({{"line", d.pos.line}, {"column", d.pos.column}, {"message", d.message}});
                entry["notes"] = std::move(notes);
            }
            report["graphs"].push_back(std::move(entry));
        } else if (graph) {
            print_warnings(*graph);
            std::printf("%s: ok (%zu node%s)\n", path.c_str(), graph->nodes.size(),
                        graph->nodes.size() == 1 ? "" : "s");
            print_notes(*graph, stdout);
        } else {
            print_diagnostics(diags);
            if (!found) std::fprintf(stderr, "%s\n", not_found_message(named).c_str());
        }
    }
    if (json) {
        report["ok"] = failed == 0;
        std::printf("%s\n", report.dump(2).c_str());
    } else if (paths.size() > 1) {
        std::printf("%zu of %zu graphs valid\n", paths.size() - failed, paths.size());
    }
    std::fflush(stdout);
    return failed == 0 ? kExitOk : kExitInvalid;
}

const TableCommandRegistration registration{
    "check", "validate graph files without running them", check_table, check_main};

} // namespace
} // namespace fieldflow::host
