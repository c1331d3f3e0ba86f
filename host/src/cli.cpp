#include <fieldflow/host/cli.hpp>
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
                      "  --version    show the program, plugin ABI, model-format and engine versions\n\n"
                      "exit codes: 0 success, 1 a node failed, 2 invalid graph or usage,\n"
                      "            130/143 interrupted (SIGINT/SIGTERM)\n");
}

} // namespace

const char* version() { return versions::kProgram; }

void register_command(Command command) {
    auto& all = registry();
    all.erase(std::remove_if(all.begin(), all.end(),
                             [&](const Command& c) { return c.name == command.name; }),
              all.end());
    all.push_back(std::move(command));
}

const std::vector<Command>& commands() { return registry(); }

int run_cli(int argc, char** argv) {
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
        std::fputs(version_text().c_str(), stdout);
        return kExitOk;
    }
    for (const Command& c : registry()) {
        if (c.name != first) continue;
        std::vector<std::string> args(argv + 2, argv + argc);
        try {
            return c.main(args);
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
