// Pieces every subcommand shares: option parsing with --help and usage errors, plugin loading,
// `--set` parsing and printing graph errors. For commands in host/src/commands/ and for commands
// other libraries add (they link ff_host and register with CommandRegistration).
#pragma once

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/op_registry.hpp>
#include <fieldflow/host/variables.hpp>

#include <boost/program_options.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host {

struct CommandLine {
    std::string name;  // "run"
    std::string usage; // "fieldflow run GRAPH [options]"
    std::string about; // a paragraph under the usage line
    boost::program_options::options_description options{"options"};
    boost::program_options::positional_options_description positional;
    boost::program_options::variables_map values;

    explicit CommandLine(std::string command, std::string usage_line, std::string text);

    // Parses `args`. Returns an exit code to return at once (0 after --help, 2 after a usage
    // error, already reported), or nullopt to go on.
    std::optional<int> parse(const std::vector<std::string>& args);

    int usage_error(const std::string& message) const; // prints it with the usage line; 2
    // Boost's error in the user's terms ("unknown option '--stpes' (did you mean '--steps'?)").
    std::string explain(const boost::program_options::error& error, const std::vector<std::string>& args) const;
    std::vector<std::string> option_names() const; // "--steps", ... (not the positional ones)
    void print_help(FILE* out = stdout) const;         // usage, text and options, wrapped
};

// Declares the command's positional argument `name` (shown as `shown` in messages, e.g. GRAPH),
// taking `count` values (-1: any number).
void add_positional(CommandLine& cl, const char* name, const char* doc, int count = 1);

// Adds --json: machine-readable output on stdout.
void add_json_option(CommandLine& cl);

// Registers a command whose options come from `table` (also used by help, completion and man).
struct TableCommandRegistration {
    TableCommandRegistration(std::string name, std::string summary,
                             std::unique_ptr<CommandLine> (*table)(),
                             int (*main)(CommandLine& cl, const std::vector<std::string>& args));
};

// Adds `--plugin FILE` (repeatable).
void add_plugin_option(CommandLine& cl);
// Adds `--set name=value` (repeatable).
void add_set_option(CommandLine& cl);

// Loads the built-in, FIELDFLOW_PLUGIN_PATH and --plugin plugins, printing each failure.
// False if any plugin failed to load.
bool load_registry(OpRegistry& registry, const CommandLine& cl);

// The --set values; nullopt after reporting a malformed one.
std::optional<VarOverrides> set_values(const CommandLine& cl);

void print_diagnostics(const Diagnostics& diags);
// The graph's warnings (params without effect, ...), one FILE:LINE:COL line each, on stderr.
void print_warnings(const Graph& graph);
// The graph's notes (what its nodes' work will cost), one FILE:LINE:COL line each.
void print_notes(const Graph& graph, FILE* out);

// "--jobs abc is not a number: give a whole number from 1 to MAX", or "... is out of range: ..."
// for a number parse_count refused.
std::string count_error(const std::string& option, const std::string& text, long max);

// A count option given as text (--jobs): a whole number from 1 to `max`, else nullopt. Read as
// text because an unsigned option would take "-1" as 4294967295.
std::optional<unsigned> parse_count(const std::string& text, long max);

} // namespace fieldflow::host
