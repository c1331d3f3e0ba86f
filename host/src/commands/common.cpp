#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/plugin_loader.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>

namespace po = boost::program_options;

namespace fieldflow::host {

CommandLine::CommandLine(std::string command, std::string usage_line, std::string text)
    : name(std::move(command)), usage(std::move(usage_line)), about(std::move(text)) {
    options.add_options()("help,h", "show this help");
}

std::optional<int> CommandLine::parse(const std::vector<std::string>& args) {
    try {
        po::store(po::command_line_parser(args).options(options).positional(positional).run(), values);
        if (values.count("help")) {
            print_help();
            return kExitOk;
        }
        po::notify(values);
    } catch (const po::error& e) {
        return usage_error(e.what());
    }
    return std::nullopt;
}

int CommandLine::usage_error(const std::string& message) const {
    std::fprintf(stderr, "fieldflow %s: error: %s\nusage: %s\n(see `fieldflow %s --help`)\n",
                 name.c_str(), message.c_str(), usage.c_str(), name.c_str());
    return kExitInvalid;
}

void CommandLine::print_help() const {
    std::cout << "usage: " << usage << "\n\n" << about << "\n\n" << options << "\n";
}

void add_plugin_option(CommandLine& cl) {
    cl.options.add_options()("plugin", po::value<std::vector<std::string>>()->value_name("FILE"),
                             "load this plugin too (repeatable); built-in plugins and those in "
                             "FIELDFLOW_PLUGIN_PATH are always loaded");
}

void add_set_option(CommandLine& cl) {
    cl.options.add_options()("set", po::value<std::vector<std::string>>()->value_name("NAME=VALUE"),
                             "set a graph variable (repeatable)");
}

bool load_registry(OpRegistry& registry, const CommandLine& cl) {
    std::vector<std::string> files;
    if (cl.values.count("plugin")) files = cl.values["plugin"].as<std::vector<std::string>>();
    const std::vector<std::string> errors = load_plugins(registry, files);
    for (const std::string& e : errors) std::fprintf(stderr, "error: %s\n", e.c_str());
    return errors.empty();
}

std::optional<VarOverrides> set_values(const CommandLine& cl) {
    VarOverrides sets;
    if (!cl.values.count("set")) return sets;
    for (const std::string& arg : cl.values["set"].as<std::vector<std::string>>()) {
        auto parsed = parse_set_argument(arg);
        if (!parsed) {
            cl.usage_error("--set '" + arg + "': expected NAME=VALUE");
            return std::nullopt;
        }
        sets.push_back(*parsed);
    }
    return sets;
}

void print_diagnostics(const Diagnostics& diags) {
    std::fputs(diags.format().c_str(), stderr);
    std::fprintf(stderr, "%zu error%s\n", diags.size(), diags.size() == 1 ? "" : "s");
}

std::optional<unsigned> parse_count(const std::string& text, long max) {
    const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
    if (text.size() == digits || text.size() > 18 ||
        !std::all_of(text.begin() + std::ptrdiff_t(digits), text.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::nullopt;
    const long n = std::stol(text);
    if (n < 1 || n > max) return std::nullopt;
    return static_cast<unsigned>(n);
}

} // namespace fieldflow::host
