// `fieldflow run GRAPH`: validate, then run a graph.
#include "graph_command.hpp"

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

bool valid_device(const std::string& d) {
    if (d == "auto" || d == "cpu") return true;
    return !d.empty() && d.size() < 4 &&
           std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

int run_main(const std::vector<std::string>& args) {
    CommandLine cl("run",
                   "fieldflow run GRAPH [--set NAME=VALUE]... [--device auto|cpu|N] [--jobs N]\n"
                   "                     [--cache DIR | --no-cache] [--plugin FILE]... [--quiet]",
                   "Validates GRAPH, then runs it: nodes in dependency order, independent branches "
                   "in parallel,\nresults of expensive ops reused from the disk cache. Exit code: 0 "
                   "success, 1 a node failed,\n2 invalid graph or usage, 130/143 interrupted.");
    cl.options.add_options()("graph", po::value<std::string>()->required(), "graph file");
    cl.positional.add("graph", 1);
    add_set_option(cl);
    cl.options.add_options()
        ("device", po::value<std::string>()->default_value("auto")->value_name("auto|cpu|N"),
         "compute device for nodes that use one")
        ("jobs,j", po::value<std::string>()->value_name("N"),
         "nodes run at the same time, 1 to 1024 (default: hardware threads)")
        ("cache", po::value<std::string>()->value_name("DIR"),
         "disk cache folder (default: $FIELDFLOW_CACHE_DIR, $XDG_CACHE_HOME/fieldflow or "
         "~/.cache/fieldflow)")
        ("no-cache", "do not read or write the disk cache")
        ("quiet,q", "print only warnings, errors and failures");
    add_plugin_option(cl);
    if (auto code = cl.parse(args)) return *code;
    auto sets = set_values(cl);
    if (!sets) return kExitInvalid;
    const std::string device = cl.values["device"].as<std::string>();
    if (!valid_device(device))
        return cl.usage_error("--device '" + device + "': expected auto, cpu or a device number");
    if (cl.values.count("cache") && cl.values.count("no-cache"))
        return cl.usage_error("--cache and --no-cache exclude each other");
    unsigned jobs = 0;
    if (cl.values.count("jobs")) {
        const std::string text = cl.values["jobs"].as<std::string>();
        const auto count = parse_count(text, 1024);
        if (!count) return cl.usage_error("--jobs " + text + " is out of range: give a whole number from 1 to 1024");
        jobs = *count;
    }
    const bool quiet = cl.values.count("quiet") > 0;

    OpRegistry registry;
    auto graph = load_command_graph(cl, registry, cl.values["graph"].as<std::string>(), *sets);
    if (!graph) return kExitInvalid;

    ProgressBoard board(stderr, ProgressBoard::is_terminal(stderr), !quiet);
    RunLog log(board, quiet);

    std::optional<DiskCache> disk;
    if (!cl.values.count("no-cache")) {
        std::string dir = cl.values.count("cache") ? cl.values["cache"].as<std::string>()
                                                   : DiskCache::default_dir();
        if (dir.empty()) log.warning("no cache folder (set FIELDFLOW_CACHE_DIR or HOME); disk cache off");
        else disk.emplace(dir);
    }
    use_shader_cache(disk ? disk->dir() : "");
    RunOptions options;
    options.jobs = jobs;
    options.device = device;
    options.disk = disk ? &*disk : nullptr;
    return run_and_summarise(*graph, options, board, log);
}

const CommandRegistration registration{{"run", "validate and run a graph file", run_main}};

} // namespace
} // namespace fieldflow::host
