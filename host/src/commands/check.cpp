// `fieldflow check GRAPH`: validate a graph file without running anything.
#include "graph_command.hpp"

#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>

#include <cstdio>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

int check_main(const std::vector<std::string>& args) {
    CommandLine cl("check", "fieldflow check GRAPH [--set NAME=VALUE]... [--plugin FILE]...",
                   "Validates GRAPH (syntax, ops, params, inputs, types, cycles, variables) without "
                   "running it. Every error is reported as FILE:LINE:COL: error: MESSAGE.");
    cl.options.add_options()("graph", po::value<std::string>()->required(), "graph file");
    cl.positional.add("graph", 1);
    add_set_option(cl);
    add_plugin_option(cl);
    if (auto code = cl.parse(args)) return *code;
    auto sets = set_values(cl);
    if (!sets) return kExitInvalid;

    OpRegistry registry;
    const std::string path = cl.values["graph"].as<std::string>();
    auto graph = load_command_graph(cl, registry, path, *sets);
    if (!graph) return kExitInvalid;
    std::printf("%s: ok (%zu node%s)\n", path.c_str(), graph->nodes.size(),
                graph->nodes.size() == 1 ? "" : "s");
    return kExitOk;
}

const CommandRegistration registration{
    {"check", "validate a graph file without running it", check_main}};

} // namespace
} // namespace fieldflow::host
