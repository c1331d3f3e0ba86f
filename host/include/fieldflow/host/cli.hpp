// The `fieldflow` command line: subcommands register themselves (one file each under
// host/src/commands/, or in another library linked into the program) and run_cli dispatches.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fieldflow::host {

struct CommandLine;

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitNodeFailed = 1;
inline constexpr int kExitInvalid = 2; // invalid graph or usage
inline constexpr int kExitSigint = 130;
inline constexpr int kExitSigterm = 143;

struct Command {
    std::string name;    // "run"
    std::string summary; // one line for `fieldflow --help`
    // Receives the arguments after the command name; returns the exit code.
    std::function<int(const std::vector<std::string>& args)> main;
    // The command's usage, text and option table, without parsing anything: for `fieldflow help
    // COMMAND`, shell completion and the man page. Empty for a command without options.
    std::function<std::unique_ptr<CommandLine>()> options = {};
};

void register_command(Command command);
const std::vector<Command>& commands();

// Registers a command at load time: `static const CommandRegistration reg{{"run", "...", fn}};`
struct CommandRegistration {
    explicit CommandRegistration(Command command) { register_command(std::move(command)); }
};

int run_cli(int argc, char** argv);

// The program as the user typed it (argv[0], e.g. "build/bin/fieldflow"), for messages that
// print a command to run again; "fieldflow" before run_cli.
const std::string& invoked_as();

// Prints the general usage (every command with its summary) to `out`.
void print_usage(FILE* out);

// A command by name, or nullptr.
const Command* find_command(const std::string& name);

const char* version();

// `fieldflow --version` / `fieldflow version`: the program version on the first line, then the
// plugin ABI, model-format, checkpoint-format and engine versions, one per line.
std::string version_text();

} // namespace fieldflow::host
