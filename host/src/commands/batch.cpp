// `fieldflow batch GRAPH --input DIR --output DIR`: the graph once per image, each image in its
// own process, resumable, in parallel, summarised; `--shard I/N` splits the work over machines
// and `--merge` combines their summaries.
#include <fieldflow/host/batch/all_devices.hpp>
#include <fieldflow/host/batch/batch_runner.hpp>
#include <fieldflow/host/batch/inputs.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/graph_file.hpp>
#include <fieldflow/host/validate.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fieldflow::host {
namespace {

using namespace batch;

bool valid_device(const std::string& d) {
    if (d == "cpu") return true;
    return !d.empty() && d.size() < 4 &&
           std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) items.push_back(item);
    return items;
}

// Jobs when --jobs is not given: one per GPU; on the CPU driver, half the cores (each image's
// run is itself multi-threaded); with the default device, one.
unsigned default_jobs(const std::vector<std::string>& devices) {
    if (devices.empty()) return 1;
    if (std::all_of(devices.begin(), devices.end(), [](const std::string& d) { return d == "cpu"; }))
        return std::max(1u, std::thread::hardware_concurrency() / 2);
    return static_cast<unsigned>(devices.size());
}

// The most images in flight: each is a process with its own device queue and memory, so a few
// hundred is already far past any machine's useful parallelism.
constexpr long kMaxJobs = 256;

int merge_main(const CommandLine& cl) {
    for (const char* option : {"graph", "input", "glob", "jobs", "devices", "shard", "resume", "set",
                               "plugin", "cache", "no-cache", "metrics"})
        if (cl.values.count(option) && !cl.values[option].defaulted())
            return cl.usage_error(std::string("--merge takes only folders and --output, not ") +
                                  (std::string(option) == "graph" ? "a graph" : "--" + std::string(option)));
    if (!cl.values.count("output")) return cl.usage_error("--merge needs --output DIR");
    std::vector<fs::path> dirs;
    for (const std::string& d : cl.values["merge"].as<std::vector<std::string>>()) dirs.emplace_back(d);
    if (dirs.empty()) return cl.usage_error("--merge needs at least one folder");
    return merge_batches(dirs, cl.values["output"].as<std::string>());
}

std::unique_ptr<CommandLine> batch_table() {
    auto table = std::make_unique<CommandLine>(
        "batch",
        "fieldflow batch GRAPH --input DIR --output DIR [--glob PATTERN] [--jobs N]\n"
        "                       [--devices LIST] [--shard I/N] [--resume] [--set NAME=VALUE]...\n"
        "       fieldflow batch --merge DIR... --output DIR",
        "Runs GRAPH once per image in the input folder, each in its own `fieldflow run` process "
        "with the\nvariables input (the image), output (its folder) and, if the graph declares it, "
        "stem set.\nAn image's outputs appear in OUTPUT/<stem>/ only when its run succeeded; logs "
        "go to\nOUTPUT/logs/<stem>.log; OUTPUT/manifest.jsonl records every finished image, so "
        "--resume skips\nthe ones done with the same input and graph. summary.csv, summary.json and "
        "index.html list\nevery image. --shard I/N takes every N-th image from the I-th (for cluster "
        "array jobs);\n--merge combines the shards' folders into one summary. Exit code: 0 all done, "
        "1 an image\nfailed, 2 invalid graph or usage, 130/143 interrupted.");
    CommandLine& cl = *table;
    add_positional(cl, "graph", "graph file");
    cl.options.add_options()
        ("input", po::value<std::string>()->value_name("DIR"), "folder of images")
        ("output", po::value<std::string>()->value_name("DIR"), "folder for the results")
        ("glob", po::value<std::string>()->value_name("PATTERN"),
         "which files to take (default: image extensions, directly in DIR); a pattern with '/' "
         "searches subfolders")
        ("jobs,j", po::value<std::string>()->value_name("N"),
         "images in flight, 1 to 256 (default: one per GPU in --devices, half the cores for cpu, "
         "else 1)")
        ("devices", po::value<std::string>()->value_name("LIST"),
         "devices the images' runs take in turn: GPU numbers (0,1), cpu, or all (every GPU; the "
         "CPU driver where there is none); an image whose device fails is retried on another "
         "(default: each run's default device)")
        ("shard", po::value<std::string>()->value_name("I/N"),
         "run only the images whose index in the sorted list is I modulo N")
        ("resume", "skip images the manifest records as done with the same input and graph")
        ("metrics", po::value<std::string>()->default_value("metrics.json")->value_name("FILE"),
         "the file in each image's outputs that the summary reads")
        ("cache", po::value<std::string>()->value_name("DIR"), "passed on to `fieldflow run`")
        ("no-cache", "passed on to `fieldflow run`")
        ("merge", po::value<std::vector<std::string>>()->multitoken()->value_name("DIR..."),
         "combine the summaries of these batch folders (shards) into --output")
        ("quiet,q", "print only failures and the final summary");
    add_set_option(cl);
    add_plugin_option(cl);
    return table;
}

int batch_main(CommandLine& cl, const std::vector<std::string>&) {
    if (cl.values.count("merge")) return merge_main(cl);

    if (!cl.values.count("graph"))
        return cl.usage_error("no graph file given: name the graph (a YAML file) to run on each image");
    if (!cl.values.count("input")) return cl.usage_error("--input DIR is required");
    if (!cl.values.count("output")) return cl.usage_error("--output DIR is required");
    auto sets = set_values(cl);
    if (!sets) return kExitInvalid;
    for (const auto& [name, value] : *sets)
        if (name == "input" || name == "output" || name == "stem")
            return cl.usage_error("--set " + name + ": the batch sets '" + name + "' for each image");
    if (cl.values.count("cache") && cl.values.count("no-cache"))
        return cl.usage_error("--cache and --no-cache exclude each other");

    BatchOptions options;
    const bool all_devices = cl.values.count("devices") && cl.values["devices"].as<std::string>() == "all";
    if (cl.values.count("devices") && !all_devices) {
        options.devices = split_list(cl.values["devices"].as<std::string>());
        if (options.devices.empty()) return cl.usage_error("--devices is empty");
        for (const std::string& d : options.devices)
            if (!valid_device(d))
                return cl.usage_error("--devices: '" + d + "' is not a device (expected all, or numbers "
                                      "or cpu, comma-separated)");
    }
    options.jobs = default_jobs(options.devices);
    if (cl.values.count("jobs")) {
        const std::string text = cl.values["jobs"].as<std::string>();
        const auto jobs = parse_count(text, kMaxJobs);
        if (!jobs)
            return cl.usage_error(count_error("--jobs", text, kMaxJobs) + " (images in flight)");
        options.jobs = *jobs;
    }
    if (cl.values.count("shard")) {
        options.shard = parse_shard(cl.values["shard"].as<std::string>());
        if (!options.shard)
            return cl.usage_error("--shard '" + cl.values["shard"].as<std::string>() +
                                  "': expected I/N with 0 <= I < N");
    }
    options.resume = cl.values.count("resume") > 0;
    options.quiet = cl.values.count("quiet") > 0;
    options.metrics_file = cl.values["metrics"].as<std::string>();
    options.sets = *sets;
    if (cl.values.count("plugin"))
        for (const std::string& p : cl.values["plugin"].as<std::vector<std::string>>())
            options.run_flags.insert(options.run_flags.end(), {"--plugin", fs::absolute(p).string()});
    if (cl.values.count("cache"))
        options.run_flags.insert(options.run_flags.end(),
                                 {"--cache", fs::absolute(cl.values["cache"].as<std::string>()).string()});
    if (cl.values.count("no-cache")) options.run_flags.push_back("--no-cache");

    // The graph: read once (its text is part of every image's hash), then validated as each
    // image's run will see it.
    const std::string graph_path = cl.values["graph"].as<std::string>();
    options.graph = fs::absolute(graph_path);
    std::ifstream graph_file(graph_path, std::ios::binary);
    if (!graph_file) {
        std::fprintf(stderr, "%s: error: cannot read the graph file\n", graph_path.c_str());
        return kExitInvalid;
    }
    std::ostringstream graph_text;
    graph_text << graph_file.rdbuf();
    options.graph_hash = hash_graph(graph_text.str(), options.sets);

    Diagnostics parse_diags(graph_path);
    const GraphAst ast = parse_graph_text(graph_text.str(), parse_diags);
    auto declared = [&](const char* name) {
        return std::any_of(ast.vars.begin(), ast.vars.end(), [&](const VarAst& v) { return v.name == name; });
    };
    if (parse_diags.empty() && (!declared("input") || !declared("output"))) {
        std::fprintf(stderr, "%s: error: a batch graph must declare the variables 'input' and "
                             "'output' (e.g. `vars: {input: ~, output: ~}`); the batch sets them "
                             "for each image\n", graph_path.c_str());
        return kExitInvalid;
    }
    options.declares_stem = declared("stem");

    const fs::path input_dir = fs::absolute(cl.values["input"].as<std::string>()).lexically_normal();
    options.output = fs::absolute(cl.values["output"].as<std::string>()).lexically_normal();
    options.input = input_dir;
    if (auto overlap = folder_overlap(cl.values["input"].as<std::string>(), cl.values["output"].as<std::string>()))
        return cl.usage_error(*overlap);
    const std::string glob = cl.values.count("glob") ? cl.values["glob"].as<std::string>() : "";
    std::vector<BatchInput> all;
    try {
        all = list_batch_inputs(input_dir, glob, options.output);
    } catch (const std::exception& e) {
        return cl.usage_error(std::string("--input: ") + e.what());
    }
    if (all.empty())
        return cl.usage_error("no images in '" + input_dir.string() + "'" +
                              (glob.empty() ? " (with an image extension)" : " matching '" + glob + "'"));

    OpRegistry registry;
    if (!load_registry(registry, cl)) return kExitInvalid;
    std::string all_text; // what --devices all became, in words
    if (all_devices) {
        try {
            AllDevices all = choose_all_devices(list_devices(registry));
            options.devices = std::move(all.selectors);
            all_text = std::move(all.text);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "fieldflow batch: error: %s\n", e.what());
            return kExitInvalid;
        }
        if (!cl.values.count("jobs")) options.jobs = default_jobs(options.devices);
    }
    // Validation looks at the input file too (ReadImage checks that it is an image), so one bad
    // image must not stop the batch: the graph is valid if it validates with any of the first
    // few images; the bad ones fail on their own when their turn comes.
    std::optional<Diagnostics> first_errors;
    const size_t probes = std::min<size_t>(all.size(), 5);
    for (size_t i = 0; i < probes; ++i) {
        VarOverrides probe = options.sets;
        probe.emplace_back("input", fs::absolute(all[i].path).string());
        probe.emplace_back("output", (options.output / all[i].stem).string());
        if (options.declares_stem) probe.emplace_back("stem", all[i].stem);
        Diagnostics diags(graph_path);
        if (load_graph_text(graph_text.str(), probe, registry, diags)) {
            first_errors.reset();
            break;
        }
        if (!first_errors) first_errors = std::move(diags);
    }
    if (first_errors) {
        print_diagnostics(*first_errors);
        return kExitInvalid;
    }

    const std::vector<BatchInput> mine = options.shard ? select_shard(all, *options.shard) : all;
    std::string devices;
    for (const std::string& d : options.devices) devices += (devices.empty() ? "" : ",") + d;
    if (!options.quiet && all_devices) std::fprintf(stderr, "batch: --devices all: %s\n", all_text.c_str());
    if (!options.quiet)
        std::fprintf(stderr, "batch: %zu image%s%s, %u in flight%s\n", mine.size(),
                     mine.size() == 1 ? "" : "s",
                     options.shard ? (" (shard " + options.shard->text() + " of " +
                                      std::to_string(all.size()) + ")").c_str() : "",
                     options.jobs,
                     devices.empty() ? "" : (", devices " + devices).c_str());
    try {
        return run_batch(options, mine);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fieldflow batch: error: %s\n", e.what());
        return kExitInvalid;
    }
}

const TableCommandRegistration registration{
    "batch", "run a graph once per image of a folder (resumable, parallel, shardable)", batch_table,
    batch_main};

} // namespace
} // namespace fieldflow::host
