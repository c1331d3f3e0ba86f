#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/help_text.hpp>
#include <fieldflow/host/names.hpp>
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

// What a value of `option` must look like, in words ("a whole number").
std::string expected_value(const po::option_description& option) {
    auto typed = boost::dynamic_pointer_cast<const po::typed_value_base>(option.semantic());
    if (!typed) return "a value";
    const std::type_info& t = typed->value_type();
    if (t == typeid(unsigned long long) || t == typeid(unsigned)) return "a whole number, 0 or more";
    if (t == typeid(long long) || t == typeid(long) || t == typeid(int)) return "a whole number";
    if (t == typeid(double) || t == typeid(float)) return "a number";
    return "a value";
}

// The word after `--name` (or in `--name=VALUE`) in `args`: the value Boost refused.
std::string value_given(const std::vector<std::string>& args, const std::string& name) {
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--" + name && i + 1 < args.size()) return args[i + 1];
        if (args[i].rfind("--" + name + "=", 0) == 0) return args[i].substr(name.size() + 3);
    }
    return "";
}

} // namespace

std::vector<std::string> CommandLine::option_names() const {
    std::vector<std::string> names;
    for (const auto& option : options.options()) {
        bool positional_name = false;
        for (unsigned i = 0; i < positional.max_total_count() && i < 8; ++i)
            positional_name |= positional.name_for_position(i) == option->long_name();
        if (!positional_name) names.push_back("--" + option->long_name());
    }
    return names;
}

std::string CommandLine::explain(const po::error& error, const std::vector<std::string>& args) const {
    if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&error)) {
        const std::string name = unknown->get_option_name();
        return "unknown option '" + name + "'" + did_you_mean(name, option_names());
    }
    if (dynamic_cast<const po::too_many_positional_options_error*>(&error)) {
        // The words that are not options or their values, past those the command takes.
        std::vector<std::string> words;
        for (size_t i = 0; i < args.size(); ++i) {
            if (args[i].size() > 1 && args[i][0] == '-') {
                const std::string name = args[i].substr(args[i].find_first_not_of('-'));
                const auto* option = options.find_nothrow(name.substr(0, name.find('=')), true);
                if (option && option->semantic()->max_tokens() > 0 && name.find('=') == std::string::npos) ++i;
                continue;
            }
            words.push_back(args[i]);
        }
        const unsigned takes = positional.max_total_count();
        std::string extra;
        for (size_t i = takes; i < words.size(); ++i) extra += (extra.empty() ? "'" : ", '") + words[i] + "'";
        return "unexpected argument" + std::string(words.size() > takes + 1 ? "s " : " ") + extra +
               ": `fieldflow " + name + "` takes " + (takes == 1 ? "one word" : "at most " + std::to_string(takes) + " words") +
               " besides its options (see its usage below)";
    }
    if (const auto* invalid = dynamic_cast<const po::validation_error*>(&error)) {
        const std::string option_name = invalid->get_option_name();
        const std::string bare = option_name.substr(std::min(option_name.find_first_not_of('-'), option_name.size()));
        const auto* option = options.find_nothrow(bare, false);
        return option_name + " '" + value_given(args, bare) + "' is not " +
               (option ? expected_value(*option) : "a valid value");
    }
    if (const auto* required = dynamic_cast<const po::required_option*>(&error))
        return required->get_option_name() + " is required";
    if (const auto* twice = dynamic_cast<const po::multiple_occurrences*>(&error))
        return twice->get_option_name() + " is given more than once; give it once";
    if (const auto* syntax = dynamic_cast<const po::invalid_syntax*>(&error)) {
        if (syntax->kind() == po::invalid_syntax::missing_parameter)
            return syntax->get_option_name() + " needs a value";
    }
    if (const auto* ambiguous = dynamic_cast<const po::ambiguous_option*>(&error)) {
        std::string which;
        for (const std::string& a : ambiguous->alternatives()) which += (which.empty() ? "--" : ", --") + a;
        return "'" + ambiguous->get_option_name() + "' is short for more than one option: " + which;
    }
    return error.what();
}

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
        return usage_error(explain(e, args));
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

void print_notes(const Graph& graph, FILE* out) {
    for (const Diagnostic& d : graph.notes) std::fprintf(out, "%s\n", d.format().c_str());
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
