// Commands that are a fixed graph (`fieldflow train`, `fieldflow render`): they build the graph
// as text with their options as variables and run it like `fieldflow run`, so the host never links
// the engine: the work happens in the nodes the plugins provide.
#pragma once

#include <fieldflow/host/command_support.hpp>

#include <string>

namespace fieldflow::host {

struct GraphCommandOptions {
    std::string device = "auto";
    bool quiet = false;
};

// Validates and runs `graph_text` (named `name` in messages) with `sets` as its variables, without
// the disk cache. Returns the process exit code (as `fieldflow run`).
int run_graph_command(const CommandLine& cl, const std::string& name, const std::string& graph_text,
                      const VarOverrides& sets, const GraphCommandOptions& options);

// Adds --device and --quiet, read back by graph_command_options.
void add_graph_command_options(CommandLine& cl);
GraphCommandOptions graph_command_options(const CommandLine& cl);

} // namespace fieldflow::host
