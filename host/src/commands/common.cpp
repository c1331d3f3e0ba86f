#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/help_text.hpp>
#include <fieldflow/host/plugin_loader.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

// Wraps one usage form, never breaking inside an [--option VALUE] group.
std::string wrap_usage_form(std::string form, size_t width, size_t hang) {
    int depth = 0;
    for (char& c : form) {
        if (c == '[') ++depth;
        else if (c == ']') --depth;
        else if (c == ' ' && depth > 0) c = '\x01';
    }
    std::string text = wrap_text(form, width, hang, 7);
    std::replace(text.begin(), text.end(), '\x01', ' ');
    return text;
}

} // namespace

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

void CommandLine::print_help(FILE* out) const {
    const size_t width = text_width(out);
    // The usage line re-wrapped under the command's name; a second form ("       fieldflow
    // batch --merge ...") starts its own line.
    std::string text;
    const size_t hang = std::string("usage: fieldflow ").size() + name.size() + 1;
    std::istringstream forms(usage);
    std::string form;
    for (std::string line; std::getline(forms, line);) {
        const bool new_form = line.find_first_not_of(' ') != std::string::npos &&
                              line.compare(line.find_first_not_of(' '), 10, "fieldflow ") == 0;
        if (new_form && !form.empty()) {
            text += wrap_usage_form(form, width, hang) + "\n";
            form.clear();
        }
        form += (form.empty() ? "" : " ") + line.substr(std::min(line.find_first_not_of(' '), line.size()));
    }
    text += wrap_usage_form(form, width, hang) + "\n";
    text = "usage: " + text.substr(7) + "\n" + wrap_text(about, width) + "\n\n";
    const std::vector<OptionRow> rows = option_rows(options, positional);
    text += "options:\n" + format_option_rows(rows, width);
    std::fputs(text.c_str(), out);
}

void add_positional(CommandLine& cl, const char* name, const char* doc, int count) {
    if (count == 1) cl.options.add_options()(name, po::value<std::string>(), doc);
    else cl.options.add_options()(name, po::value<std::vector<std::string>>(), doc);
    cl.positional.add(name, count);
}

void add_json_option(CommandLine& cl) {
    cl.options.add_options()("json", "write the result as JSON on stdout, for scripts and editors");
}

TableCommandRegistration::TableCommandRegistration(
    std::string name, std::string summary, std::unique_ptr<CommandLine> (*table)(),
    int (*main)(CommandLine& cl, const std::vector<std::string>& args)) {
    register_command({std::move(name), std::move(summary),
                      [table, main](const std::vector<std::string>& args) {
                          std::unique_ptr<CommandLine> cl = table();
                          if (auto code = cl->parse(args)) return *code;
                          return main(*cl, args);
                      },
                      [table] { return table(); }});
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
    if (errors.empty() && registry.size() == 0) {
        // Nothing to run graphs with: say where plugins were looked for.
        std::string searched;
        for (const std::string& dir : plugin_search_candidates()) {
            std::error_code ec;
            searched += "\n  " + dir + (std::filesystem::is_directory(dir, ec) ? "" : " (missing)");
        }
        std::fprintf(stderr, "error: no plugin was found, so no op is available. Folders searched:%s\n"
                             "Build the plugins (cmake --build build), or point FIELDFLOW_PLUGIN_PATH "
                             "or --plugin at them.\n", searched.c_str());
        return false;
    }
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

void print_warnings(const Graph& graph) {
    for (const Diagnostic& d : graph.warnings) std::fprintf(stderr, "%s\n", d.format().c_str());
}

std::string count_error(const std::string& option, const std::string& text, long max) {
    const size_t sign = !text.empty() && text[0] == '-' ? 1 : 0;
    const bool number = text.size() > sign && std::all_of(text.begin() + std::ptrdiff_t(sign), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
    return option + " " + text + (number ? " is out of range" : " is not a number") +
           ": give a whole number from 1 to " + std::to_string(max);
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
