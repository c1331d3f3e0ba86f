#include "graph_command.hpp"

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/interrupt.hpp>
#include <fieldflow/host/progress.hpp>
#include <fieldflow/host/run_log.hpp>
#include <fieldflow/host/scheduler.hpp>
#include <fieldflow/host/validate.hpp>

namespace po = boost::program_options;

namespace fieldflow::host {

void add_graph_command_options(CommandLine& cl) {
    cl.options.add_options()
        ("device", po::value<std::string>()->default_value("auto")->value_name("auto|cpu|N"),
         "compute device")
        ("quiet,q", "print only warnings, errors and failures");
    add_plugin_option(cl);
}

GraphCommandOptions graph_command_options(const CommandLine& cl) {
    GraphCommandOptions o;
    o.device = cl.values["device"].as<std::string>();
    o.quiet = cl.values.count("quiet") > 0;
    return o;
}

std::optional<Graph> load_command_graph(const CommandLine& cl, OpRegistry& registry,
                                        const std::string& path, const VarOverrides& sets) {
    if (!load_registry(registry, cl)) return std::nullopt;
    Diagnostics diags(path);
    auto graph = load_graph(path, sets, registry, diags);
    if (!graph) print_diagnostics(diags);
    return graph;
}

int run_and_summarise(const Graph& graph, RunOptions options, ProgressBoard& board, RunLog& log) {
    MemoryCache memory;
    options.memory = &memory;
    options.log = &log;
    options.cancel = &install_interrupt_handlers();
    RunResult result = run_graph(graph, options);
    log.summary(result, graph.nodes.size());
    for (size_t i = 0; i < result.nodes.size(); ++i)
        if (result.nodes[i].status == NodeStatus::Failed)
            board.print("error: node '" + graph.nodes[i].name + "' failed: " + result.nodes[i].message);
    if (result.interrupted) return interrupt_exit_code() ? interrupt_exit_code() : kExitSigint;
    return result.any_failed() ? kExitNodeFailed : kExitOk;
}

int run_graph_command(const CommandLine& cl, const std::string& name, const std::string& graph_text,
                      const VarOverrides& sets, const GraphCommandOptions& options) {
    OpRegistry registry;
    if (!load_registry(registry, cl)) return kExitInvalid;
    Diagnostics diags(name);
    auto graph = load_graph_text(graph_text, sets, registry, diags);
    if (!graph) {
        print_diagnostics(diags);
        return kExitInvalid;
    }
    ProgressBoard board(stderr, ProgressBoard::is_terminal(stderr), !options.quiet);
    RunLog log(board, options.quiet);
    RunOptions run;
    run.device = options.device;
    use_shader_cache(DiskCache::default_dir()); // no node results cached, but compiled shaders are
    return run_and_summarise(*graph, run, board, log);
}

} // namespace fieldflow::host
