// `fieldflow run GRAPH`: validate, then run a graph (or with --dry-run, show what would run).
#include "graph_command.hpp"

#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/cache_folder.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/graph_file.hpp>
#include <fieldflow/host/graph_search.hpp>

#include "../file_path_checks.hpp"
#include "../folder_lock.hpp"
#include "../run_staging.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fieldflow::host {
namespace {

bool valid_device(const std::string& d) {
    if (d == "auto" || d == "cpu") return true;
    return !d.empty() && d.size() < 4 &&
           std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::unique_ptr<CommandLine> run_table() {
    auto cl = std::make_unique<CommandLine>(
        "run",
        "fieldflow run GRAPH [INPUT [OUTPUT]] [--set NAME=VALUE]... [--device auto|cpu|N]\n"
        "                     [--jobs N] [--cache DIR | --no-cache] [--plugin FILE]...\n"
        "                     [--quiet] [--json] [--dry-run]",
        "Validates GRAPH, then runs it: nodes in dependency order, independent branches in "
        "parallel, results of expensive ops reused from the disk cache. Progress and the log go to "
        "stderr. An interrupted run (Ctrl-C) keeps its training checkpoint: the same command "
        "resumes it.\n\n"
        "GRAPH is a file, or an installed example by name (`fieldflow examples` lists them). "
        "INPUT and OUTPUT set the graph's `input` and `output` variables; without an output, "
        "a graph whose output is a folder under out/ writes to out/<the input's name>, and the "
        "run says where it wrote.\n\n"
        "Example:\n"
        "  fieldflow run lake photo.jpg                  # learns photo.jpg -> out/photo/\n"
        "  fieldflow run lake --set input=photo.jpg --set steps=2000\n\n"
        "Exit code: 0 success, 1 a node failed, 2 invalid graph or usage, 130/143 interrupted.");
    add_positional(*cl, "graph", "graph file");
    add_positional(*cl, "files", "the graph's input and output", 2);
    add_set_option(*cl);
    cl->options.add_options()
        ("device", po::value<std::string>()->default_value("auto")->value_name("auto|cpu|N"),
         "compute device for nodes that use one")
        ("jobs,j", po::value<std::string>()->value_name("N"),
         "nodes run at the same time, 1 to 1024 (default: hardware threads)")
        ("cache", po::value<std::string>()->value_name("DIR"),
         "disk cache folder (default: $FIELDFLOW_CACHE_DIR, $XDG_CACHE_HOME/fieldflow or "
         "~/.cache/fieldflow)")
        ("no-cache", "do not read or write node results or training state in the disk cache (compiled kernels are still cached)")
        ("quiet,q", "print only warnings, errors and failures")
        ("dry-run,n", "validate and list the nodes in the order they would run; run nothing");
    add_json_option(*cl);
    add_plugin_option(*cl);
    return cl;
}

// --dry-run: the plan, as text or JSON.
void print_plan(const Graph& graph, const std::string& path, bool json) {
    if (json) {
        nlohmann::json nodes = nlohmann::json::array();
        for (size_t i : graph.order) {
            const PlannedNode& n = graph.nodes[i];
            nlohmann::json inputs = nlohmann::json::object();
            for (const InputEdge& e : n.inputs)
                inputs[e.port] = graph.nodes[e.source].name + "." + e.source_port;
            nodes.push_back({{"name", n.name}, {"op", n.op->name}, {"inputs", inputs}});
        }
        nlohmann::json notes = nlohmann::json::array();
        for (const Diagnostic& d : graph.notes)
            notes.push_back({{"line", d.pos.line}, {"column", d.pos.column}, {"message", d.message}});
        std::printf("%s\n", nlohmann::json({{"ok", true}, {"dry_run", true}, {"file", path},
                                            {"nodes", nodes}, {"notes", notes}}).dump(2).c_str());
        return;
    }
    std::printf("%s: valid; %zu node%s would run in this order (nothing was run):\n", path.c_str(),
                graph.nodes.size(), graph.nodes.size() == 1 ? "" : "s");
    for (size_t i : graph.order) {
        const PlannedNode& n = graph.nodes[i];
        std::string inputs;
        for (const InputEdge& e : n.inputs)
            inputs += (inputs.empty() ? " <- " : ", ") + graph.nodes[e.source].name;
        std::printf("  %-16s %s%s\n", n.name.c_str(), n.op->name.c_str(), inputs.c_str());
    }
    print_notes(graph, stdout);
}

bool declares(const GraphAst& ast, const std::string& name) {
    return std::any_of(ast.vars.begin(), ast.vars.end(), [&](const VarAst& v) { return v.name == name; });
}

bool is_set(const VarOverrides& sets, const std::string& name) {
    return std::any_of(sets.begin(), sets.end(), [&](const auto& s) { return s.first == name; });
}

// INPUT and OUTPUT given after the graph become its `input` and `output` variables, and an
// input given without an output writes to out/<its stem> where the graph's own output is a folder
// under out/ (the examples' convention): one photo's results never land in another's folder.
bool place_input_and_output(const CommandLine& cl, const std::string& path, VarOverrides& sets, bool quiet) {
    Diagnostics scratch(path); // the graph's errors are reported when it loads
    const GraphAst ast = parse_graph_file(path, scratch);
    std::vector<std::string> files;
    if (cl.values.count("files")) files = cl.values["files"].as<std::vector<std::string>>();
    const char* roles[] = {"input", "output"};
    for (size_t i = 0; i < files.size(); ++i) {
        if (!declares(ast, roles[i])) {
            std::string vars;
            for (const VarAst& v : ast.vars) vars += (vars.empty() ? "" : ", ") + v.name;
            cl.usage_error("'" + files[i] + "' would be the graph's " + roles[i] + ", but " + path +
                           " declares no '" + roles[i] + "' variable" +
                           (vars.empty() ? "" : " (its vars: " + vars + "; give one with --set NAME=VALUE)"));
            return false;
        }
        if (is_set(sets, roles[i])) {
            cl.usage_error("the " + std::string(roles[i]) + " is given twice: as '" + files[i] +
                           "' and with --set " + roles[i] + "=...; give it once");
            return false;
        }
        sets.push_back({roles[i], files[i]});
    }
    if (is_set(sets, "input") && !is_set(sets, "output") && declares(ast, "input") && declares(ast, "output")) {
        const auto own = std::find_if(ast.vars.begin(), ast.vars.end(), [](const VarAst& v) { return v.name == "output"; });
        std::string input;
        for (const auto& [name, value] : sets)
            if (name == "input") input = value;
        const std::string stem = std::filesystem::path(input).stem().string();
        if (own->default_value && own->default_value->rfind("out/", 0) == 0 && !stem.empty() && stem != "." && stem != "..") {
            sets.push_back({"output", "out/" + stem});
            if (!quiet)
                std::fprintf(stderr, "output: out/%s (named after the input; --set output=DIR to choose)\n",
                             stem.c_str());
        }
    }
    return true;
}

// After a run: where its files went (the values of the params that write a file), as one folder
// where they share one.
void say_where_it_wrote(const Graph& graph) {
    std::vector<std::string> written;
    for (const PlannedNode& node : graph.nodes)
        for (const ResolvedParam& p : node.params) {
            const auto* path = std::get_if<std::string>(&p.value);
            std::error_code ec;
            if (p.info && (p.info->flags & FF_PARAM_WRITES_FILE) && path && !path->empty() &&
                std::filesystem::exists(*path, ec))
                written.push_back(*path);
        }
    if (written.empty()) return;
    std::filesystem::path folder = std::filesystem::path(written[0]).parent_path();
    for (const std::string& w : written) {
        const std::string parent = std::filesystem::path(w).parent_path().string();
        while (!folder.empty() && parent.rfind(folder.string(), 0) != 0) folder = folder.parent_path();
    }
    if (written.size() > 1 && !folder.empty())
        std::fprintf(stderr, "wrote %zu files in %s/\n", written.size(), folder.string().c_str());
    else
        for (const std::string& w : written) std::fprintf(stderr, "wrote %s\n", w.c_str());
}

int run_main(CommandLine& cl, const std::vector<std::string>& args) {
    if (!cl.values.count("graph"))
        return cl.usage_error("no graph file given: name the graph (a YAML file) to run, e.g. "
                              "`fieldflow run lake --set input=photo.jpg` (`fieldflow examples` lists the installed graphs)");
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
        if (!count) return cl.usage_error(count_error("--jobs", text, 1024));
        jobs = *count;
    }
    const bool quiet = cl.values.count("quiet") > 0;
    const bool json = cl.values.count("json") > 0;

    OpRegistry registry;
    const std::string named = cl.values["graph"].as<std::string>();
    const std::optional<std::string> found = find_graph(named);
    const std::string path = found.value_or(named); // a missing one: the loader says so
    if (found && !place_input_and_output(cl, path, *sets, quiet)) return kExitInvalid;
    auto graph = load_command_graph(cl, registry, path, *sets);
    if (!graph) {
        if (!found) std::fprintf(stderr, "%s\n", not_found_message(named).c_str());
        return kExitInvalid;
    }
    if (cl.values.count("dry-run")) {
        print_plan(*graph, path, json);
        return kExitOk;
    }

    // One writer per output folder: a second run into the same folder is refused, naming the first.
    const Graph as_written = *graph; // the paths the user gave, for the closing line
    RunStaging staging(*graph);
    const std::vector<fs::path> roots = staging.roots();
    // A batch stages each image's folder itself and moves it into place as a whole.
    const bool staged = !std::all_of(roots.begin(), roots.end(), staged_by_batch);
    std::vector<FolderLock> locks;
    std::vector<std::string> words = {invoked_as(), "run"};
    words.insert(words.end(), args.begin(), args.end());
    const auto lock = [&](const fs::path& folder) {
        locks.emplace_back(folder / ".fieldflow-lock", shell_command(words),
                           "another fieldflow run is writing to '" + folder.string() +
                               "'; wait for it to end, or give this one another output folder");
    };
    try {
        for (const fs::path& folder : roots) {
            std::error_code ec;
            fs::create_directories(folder, ec);
            if (ec) throw std::runtime_error("cannot create output folder '" + folder.string() + "': " + ec.message());
            lock(folder);
        }
        for (const fs::path& folder : staging.subfolders()) {
            std::error_code ec;
            if (fs::is_directory(fs::symlink_status(folder, ec))) lock(folder); // created only when moved into place
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fieldflow run: error: %s\n", e.what());
        return kExitInvalid;
    }

    ProgressBoard board(stderr, ProgressBoard::is_terminal(stderr), !quiet);
    RunLog log(board, quiet);
    if (staged) {
        try {
            for (const std::string& note : staging.prepare(attempt_text(as_written))) log.info(note);
        } catch (const std::exception& e) {
            board.print(std::string("fieldflow run: error: ") + e.what());
            return kExitInvalid;
        }
        staging.redirect(*graph);
    }

    std::optional<DiskCache> disk;
    if (!cl.values.count("no-cache")) {
        std::string dir = cl.values.count("cache") ? cl.values["cache"].as<std::string>()
                                                   : DiskCache::default_dir();
        if (dir.empty()) log.warning("no cache folder (set FIELDFLOW_CACHE_DIR or HOME); disk cache off");
        else if (const std::string why = claim_cache_folder(dir); !why.empty())
            log.warning(why + "; the disk cache is off for this run: give --cache a new or empty folder");
        else disk.emplace(dir);
    }
    // --no-cache keeps no results or state; compiled kernels are still cached (in the default
    // folder): a kernel's key covers its exact sources and defines, so it can never be stale, and
    // recompiling them would add seconds to every such run.
    use_shader_cache(disk ? disk->dir() : DiskCache::default_dir());
    RunOptions options;
    options.jobs = jobs;
    options.device = device;
    options.disk = disk ? &*disk : nullptr;
    SummaryStyle style;
    style.json = json;
    style.resume_command = shell_command(words);
    // An interrupted or failed run's staged files stay (hidden) for the same command to take up:
    // a resumed Train's snapshots, or a failed one's last good snapshot its message names.
    bool committed = !staged;
    if (staged)
        style.commit = [&] {
            std::string why = staging.commit();
            committed = why.empty();
            return why;
        };
    const int code = run_and_summarise(*graph, options, board, log, style);
    if (!quiet && !json && committed) say_where_it_wrote(as_written);
    return code;
}

const TableCommandRegistration registration{
    "run", "validate and run a graph file", run_table, run_main};

} // namespace
} // namespace fieldflow::host
