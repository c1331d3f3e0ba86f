// Commands that are a fixed graph (`fieldflow train`, `fieldflow render`): they build the graph
// as text with their options as variables and run it like `fieldflow run`, so the host never links
// the engine: the work happens in the nodes the plugins provide.
#pragma once

#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/progress.hpp>
#include <fieldflow/host/run_log.hpp>
#include <fieldflow/host/scheduler.hpp>

#include <functional>
#include <optional>
#include <string>

namespace fieldflow::host {

struct GraphCommandOptions {
    std::string device = "auto";
    bool quiet = false;
    bool dry_run = false; // validate and print the nodes' notes (what their work costs); run nothing
};

// Loads the plugins into `registry` and the graph file at `path` with `sets` as its variables,
// printing what fails (a plugin, or the graph's FILE:LINE:COL errors). nullopt: exit kExitInvalid.
std::optional<Graph> load_command_graph(const CommandLine& cl, OpRegistry& registry,
                                        const std::string& path, const VarOverrides& sets);

// How the end of a run is reported.
struct SummaryStyle {
    bool json = false; // the summary as JSON on stdout (the log stays on stderr)
    // The command line that runs the same work again (shell-quoted), printed after an interrupt
    // that left a checkpoint; "" for none.
    std::string resume_command;
    // Called once every node succeeded, before the summary (`fieldflow run` moves its staged
    // outputs into place): "" or what failed, which fails the run.
    std::function<std::string()> commit;
};

// Runs a validated graph with a fresh memory cache and Ctrl-C/SIGTERM handling (filling those in
// `options`), then prints the summary and each failed node's message. Returns the exit code:
// 0, 1 (a node failed) or the interrupt's (130/143).
int run_and_summarise(const Graph& graph, RunOptions options, ProgressBoard& board, RunLog& log,
                      const SummaryStyle& style = {});

// `args` as one line a POSIX shell reads back as the same words.
std::string shell_command(const std::vector<std::string>& args);

// Validates and runs `graph_text` (named `name` in messages) with `sets` as its variables, without
// the disk cache. Returns the process exit code (as `fieldflow run`).
int run_graph_command(const CommandLine& cl, const std::string& name, const std::string& graph_text,
                      const VarOverrides& sets, const GraphCommandOptions& options);

// Adds --device and --quiet, read back by graph_command_options.
void add_graph_command_options(CommandLine& cl);
GraphCommandOptions graph_command_options(const CommandLine& cl);

} // namespace fieldflow::host
