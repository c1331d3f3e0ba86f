#include "graph_command.hpp"

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/interrupt.hpp>
#include <fieldflow/host/progress.hpp>
#include <fieldflow/host/run_log.hpp>
#include <fieldflow/host/scheduler.hpp>
#include <fieldflow/host/validate.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fieldflow::host {
namespace {

std::string shell_word(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./=:,+-@%", c);
    });
    if (plain) return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

nlohmann::json summary_json(const Graph& graph, const RunResult& result, int exit_code) {
    nlohmann::json nodes = nlohmann::json::array();
    for (size_t i = 0; i < result.nodes.size(); ++i) {
        const NodeResult& r = result.nodes[i];
        nlohmann::json node = {{"name", graph.nodes[i].name},
                               {"op", graph.nodes[i].op ? graph.nodes[i].op->name : ""},
                               {"status", status_name(r.status)},
                               {"seconds", r.seconds}};
        if (!r.message.empty()) node["message"] = r.message;
        nodes.push_back(std::move(node));
    }
    return {{"ok", exit_code == kExitOk},
            {"exit_code", exit_code},
            {"interrupted", result.interrupted},
            {"seconds", result.seconds},
            {"ran", result.count(NodeStatus::Ran)},
            {"cached", result.count(NodeStatus::CachedMemory) + result.count(NodeStatus::CachedDisk)},
            {"failed", result.count(NodeStatus::Failed)},
            {"skipped", result.count(NodeStatus::Skipped)},
            {"nodes", std::move(nodes)}};
}

// After an interrupt: where each stopped node kept its state, and the command that resumes.
void print_resume_hint(const Graph& graph, const RunResult& result, const RunOptions& options,
                       const SummaryStyle& style, ProgressBoard& board) {
    if (!options.disk || style.resume_command.empty()) return;
    for (size_t i = 0; i < result.nodes.size(); ++i) {
        const NodeResult& r = result.nodes[i];
        if (r.status != NodeStatus::Cancelled) continue;
        const std::string dir = options.disk->state_path(r.key);
        std::error_code ec;
        if (!fs::is_directory(dir, ec) || fs::is_empty(dir, ec)) continue;
        board.print("node '" + graph.nodes[i].name + "': checkpoint kept in " + dir +
                    "; to resume, run: " + style.resume_command);
    }
}

} // namespace

std::string shell_command(const std::vector<std::string>& args) {
    std::string line;
    for (const std::string& a : args) line += (line.empty() ? "" : " ") + shell_word(a);
    return line;
}

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
    else print_warnings(*graph);
    return graph;
}

int run_and_summarise(const Graph& graph, RunOptions options, ProgressBoard& board, RunLog& log,
                      const SummaryStyle& style) {
    MemoryCache memory;
    options.memory = &memory;
    options.log = &log;
    options.cancel = &install_interrupt_handlers();
    RunResult result = run_graph(graph, options);
    std::string not_committed;
    if (style.commit && !result.any_failed() && !result.interrupted) not_committed = style.commit();
    log.summary(result, graph.nodes.size());
    for (size_t i = 0; i < result.nodes.size(); ++i)
        if (result.nodes[i].status == NodeStatus::Failed)
            board.print("error: node '" + graph.nodes[i].name + "' failed: " + result.nodes[i].message);
    if (!not_committed.empty()) board.print("error: " + not_committed);
    int code = result.any_failed() || !not_committed.empty() ? kExitNodeFailed : kExitOk;
    if (result.interrupted) {
        code = interrupt_exit_code() ? interrupt_exit_code() : kExitSigint;
        print_resume_hint(graph, result, options, style, board);
    }
    if (style.json) {
        std::printf("%s\n", summary_json(graph, result, code).dump(2).c_str());
        std::fflush(stdout);
    }
    return code;
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
    print_warnings(*graph);
    if (options.dry_run) {
        std::printf("%s: valid; nothing was run\n", name.c_str());
        print_notes(*graph, stdout);
        return kExitOk;
    }
    ProgressBoard board(stderr, ProgressBoard::is_terminal(stderr), !options.quiet);
    RunLog log(board, options.quiet);
    RunOptions run;
    run.device = options.device;
    use_shader_cache(DiskCache::default_dir()); // no node results cached, but compiled shaders are
    return run_and_summarise(*graph, run, board, log);
}

} // namespace fieldflow::host
