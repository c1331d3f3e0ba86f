#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/interrupt.hpp>
#include <fieldflow/plugin.h>

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

void print_usage(FILE* out) {
    std::fprintf(out, "usage: fieldflow COMMAND [options]\n\n"
                      "fieldflow runs node-based image pipelines described in graph files.\n\n"
                      "commands:\n");
    std::vector<Command> sorted = registry();
    std::sort(sorted.begin(), sorted.end(),
              [](const Command& a, const Command& b) { return a.name < b.name; });
    for (const Command& c : sorted) std::fprintf(out, "  %-10s %s\n", c.name.c_str(), c.summary.c_str());
    std::fprintf(out, "\noptions:\n"
                      "  -h, --help   show this help (`fieldflow COMMAND --help` for a command's)\n"
                      "  --version    show the version\n\n"
                      "exit codes: 0 success, 1 a node failed, 2 invalid graph or usage,\n"
                      "            130/143 interrupted (SIGINT/SIGTERM)\n");
}

} // namespace

const char* version() { return FIELDFLOW_VERSION; }

void register_command(Command command) {
    auto& all = registry();
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const Command& c) { return c.name == command.name; }),
              all.end());
    all.push_back(std::move(command));
}

const std::vector<Command>& commands() { return registry(); }

int run_cli(int argc, char** argv) {
    // First, before loading plugins, Vulkan or a graph (slow under ASan or on a loaded machine): a
    // SIGINT/SIGTERM that arrives at any point after this is a clean 130/143, never the default
    // action killing the process.
    install_interrupt_handlers();
    if (argc < 2) {
        print_usage(stderr);
        return kExitInvalid;
    }
    const std::string first = argv[1];
    if (first == "-h" || first == "--help" || first == "help") {
        print_usage(stdout);
        return kExitOk;
    }
    if (first == "--version") {
        std::printf("fieldflow %s (plugin ABI %u.%u)\n", version(), FF_ABI_MAJOR, FF_ABI_MINOR);
        return kExitOk;
    }
    for (const Command& c : registry()) {
        if (c.name != first) continue;
        std::vector<std::string> args(argv + 2, argv + argc);
        try {
            const int code = c.main(args);
            // A command that finished although it was interrupted (e.g. `check`) still says so.
            return interrupt_exit_code() ? interrupt_exit_code() : code;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "fieldflow %s: error: %s\n", first.c_str(), e.what());
            return kExitInvalid;
        }
    }
    std::fprintf(stderr, "fieldflow: unknown command '%s'\n\n", first.c_str());
    print_usage(stderr);
    return kExitInvalid;
}

} // namespace fieldflow::host
