#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/help_text.hpp>
#include <fieldflow/host/interrupt.hpp>
#include <fieldflow/host/names.hpp>
#include <fieldflow/plugin.h>
#include <fieldflow/versions.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace fieldflow::host {
namespace {

// Function-local, so registrations from any static initializer find it constructed.
std::vector<Command>& registry() {
    static std::vector<Command> all;
    return all;
}

std::string& program_name() {
    static std::string name = "fieldflow";
    return name;
}

// `fieldflow help [COMMAND]`: the general usage, or one command's help.
int help_main(const std::vector<std::string>& args) {
    if (args.empty()) {
        print_usage(stdout);
        return kExitOk;
    }
    const Command* command = find_command(args[0]);
    if (!command) {
        std::vector<std::string> words;
        for (const Command& c : registry()) words.push_back(c.name);
        std::fprintf(stderr, "fieldflow help: unknown command '%s'%s\n(`fieldflow --help` lists the commands)\n",
                     args[0].c_str(), did_you_mean(args[0], words).c_str());
        return kExitInvalid;
    }
    if (command->options) command->options()->print_help(stdout);
    else std::printf("usage: fieldflow %s\n\n%s\n", command->name.c_str(), command->summary.c_str());
    return kExitOk;
}

const CommandRegistration help_registration{
    {"help", "show the help of fieldflow or of one command (`fieldflow help run`)", help_main}};

} // namespace

const char* version() { return versions::kProgram; }

void print_usage(FILE* out) {
    const size_t width = text_width(out);
    std::string text = "usage: fieldflow COMMAND [options]\n\n" +
                       wrap_text("fieldflow runs node-based image pipelines described in graph "
                                 "files, and learns images as neural fields on the GPU.", width) +
                       "\n\ncommands:\n";
    std::vector<Command> sorted = registry();
    std::sort(sorted.begin(), sorted.end(),
              [](const Command& a, const Command& b) { return a.name < b.name; });
    constexpr size_t kColumn = 14;
    for (const Command& c : sorted) {
        std::string name = "  " + c.name;
        name.resize(std::max(kColumn, name.size() + 1), ' ');
        text += name + wrap_text(c.summary, width, kColumn, kColumn).substr(kColumn) + "\n";
    }
    text += "\noptions:\n"
            "  -h, --help    show this help (`fieldflow help COMMAND` for a command's)\n"
            "  --version     show the program, plugin ABI, model-format and engine versions\n\n"
            "exit codes: 0 success, 1 a node failed, 2 invalid graph or usage,\n"
            "            130/143 interrupted (SIGINT/SIGTERM)\n";
    std::fputs(text.c_str(), out);
}

void register_command(Command command) {
    auto& all = registry();
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const Command& c) { return c.name == command.name; }),
              all.end());
    all.push_back(std::move(command));
}

const std::vector<Command>& commands() { return registry(); }

const Command* find_command(const std::string& name) {
    for (const Command& c : registry())
        if (c.name == name) return &c;
    return nullptr;
}

const std::string& invoked_as() { return program_name(); }

int run_cli(int argc, char** argv) {
    if (argc >= 1 && argv[0] && *argv[0]) program_name() = argv[0];
    // First, before loading plugins, Vulkan or a graph (slow under ASan or on a loaded machine): a
    // SIGINT/SIGTERM that arrives at any point after this is a clean 130/143, never the default
    // action killing the process.
    install_interrupt_handlers();
    if (argc < 2) {
        print_usage(stderr);
        return kExitInvalid;
    }
    const std::string first = argv[1];
    if (first == "-h" || first == "--help") {
        print_usage(stdout);
        return kExitOk;
    }
    if (first == "--version") {
        std::fputs(version_text().c_str(), stdout);
        return kExitOk;
    }
    if (const Command* c = find_command(first)) {
        std::vector<std::string> args(argv + 2, argv + argc);
        try {
            const int code = c->main(args);
            // A command that finished although it was interrupted (e.g. `check`) still says so.
            return interrupt_exit_code() ? interrupt_exit_code() : code;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "fieldflow %s: error: %s\n", first.c_str(), e.what());
            return kExitInvalid;
        }
    }
    // A typo gets the word it was probably meant to be; anything else, where the list is.
    std::vector<std::string> words;
    for (const Command& c : registry()) words.push_back(c.name);
    const bool option = first.size() > 1 && first[0] == '-';
    if (option) words = {"--help", "--version"};
    std::string guess = did_you_mean(first, words);
    // An option of a command given first (`fieldflow --dry-run g.yaml`) belongs after the command.
    if (option && guess.empty()) guess = " (options go after the command: fieldflow COMMAND " + first + ")";
    std::fprintf(stderr, "fieldflow: unknown %s '%s'%s\n(`fieldflow --help` lists the commands)\n",
                 option ? "option" : "command", first.c_str(), guess.c_str());
    return kExitInvalid;
}

} // namespace fieldflow::host
