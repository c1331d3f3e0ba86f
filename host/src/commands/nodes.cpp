// `fieldflow nodes [OP]`: the ops the loaded plugins provide.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/help_text.hpp>
#include <fieldflow/host/names.hpp>
#include <fieldflow/host/param_conditions.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>

namespace fieldflow::host {
namespace {

// The doc's first sentence: up to a ". " followed by a capital letter outside parentheses (so
// "e.g. " and "(a, b, ...)" do not end it).
std::string first_sentence(const std::string& doc) {
    int depth = 0;
    for (size_t i = 0; i < doc.size(); ++i) {
        const char c = doc[i];
        if (c == '(') ++depth;
        else if (c == ')' && depth > 0) --depth;
        else if (c == '\n') return doc.substr(0, i);
        else if (c == '.' && depth == 0 && i + 2 < doc.size() && doc[i + 1] == ' ' &&
                 std::isupper(static_cast<unsigned char>(doc[i + 2])))
            return doc.substr(0, i + 1);
    }
    return doc;
}

// "  NAME<pad>TEXT", TEXT wrapped with its continuation lines under its first word.
std::string column_line(const std::string& name, size_t column, const std::string& text, size_t width) {
    std::string line = "  " + name;
    if (line.size() + 1 > column) return line + "\n" + wrap_text(text, width, column, column) + "\n";
    line.resize(column, ' ');
    return line + wrap_text(text, width, column, column).substr(column) + "\n";
}

// Where an op came from: the plugin file, or "(built into the program)" for in-process ops.
std::string origin(const OpInfo& op) {
    return op.plugin_file.empty() ? "(built into the program)" : op.plugin_file;
}

// Each op with the plugin it came from, then each plugin with its version and file, so an op
// that behaves unexpectedly can be traced to the library that provided it.
void list_ops(const OpRegistry& registry, size_t width) {
    std::string category, out;
    std::map<std::string, std::string> plugins; // "name version" -> file
    for (const OpInfo* op : registry.by_category()) {
        if (op->category != category) {
            out += (category.empty() ? "" : "\n") + op->category + ":\n";
            category = op->category;
        }
        std::string name = op->name;
        name.resize(std::max<size_t>(20, name.size()), ' ');
        out += column_line(name + " " + op->plugin_name, 34, first_sentence(op->doc), width);
        plugins[op->plugin_name + " " + op->plugin_version] = origin(*op);
    }
    if (!plugins.empty()) {
        out += "\nplugins:\n";
        for (const auto& [plugin, file] : plugins) out += column_line(plugin, 23, file, width);
    }
    std::fputs(out.c_str(), stdout);
}

std::string ports_text(const char* title, const std::vector<PortInfo>& ports, size_t width) {
    std::string out = std::string("\n") + title + ":\n";
    if (ports.empty()) out += "  (none)\n";
    for (const PortInfo& p : ports) {
        char head[128];
        std::snprintf(head, sizeof head, "%-16s %-8s%s", p.name.c_str(), p.type.c_str(),
                      p.optional ? " (optional)" : "");
        out += column_line(head, std::string(head).size() + 3, p.doc, width);
    }
    return out;
}

std::string flags_text(uint32_t flags) {
    std::vector<std::string> parts;
    if (flags & FF_OP_CACHE_ON_DISK) parts.push_back("results kept in the disk cache");
    if (flags & FF_OP_READS_OUTSIDE) parts.push_back("reads files (always runs)");
    if (flags & FF_OP_WRITES_OUTSIDE) parts.push_back("writes files (always runs)");
    if (parts.empty()) parts.push_back("pure (results cached in memory)");
    return join(parts, "; ");
}

std::string param_kind_text(const ParamInfo& p) {
    std::string kind = kind_name(p.kind);
    if (p.kind == FF_PARAM_ENUM) kind += " " + join(p.choices, "|");
    if (p.has_range) kind += " " + range_text(p);
    return kind;
}

// Param values given on the command line (`fieldflow nodes Train encoding=hash_grid`): which of the op's
// params apply is decided with these, the others at their defaults.
using ParamChoices = std::map<std::string, ParamValue, std::less<>>;

ParamLookup lookup(const OpInfo& op, const ParamChoices& chosen) {
    return [&op, &chosen](std::string_view name) -> const ParamValue* {
        if (auto it = chosen.find(name); it != chosen.end()) return &it->second;
        const ParamInfo* p = op.find_param(name);
        return p && p->default_value ? &*p->default_value : nullptr;
    };
}

std::string param_text(const ParamInfo& p, size_t width) {
    const std::string def = p.default_value ? "default " + p.default_text : "required";
    std::string out = column_line(p.name, 19, param_kind_text(p) + ", " + def, width);
    if (!p.doc.empty()) out += column_line("", 19, p.doc, width);
    return out;
}

// Every param, grouped by when it applies (those that always do first); or, for chosen values,
// only the params that apply to them.
std::string params_text(const OpInfo& op, const std::optional<ParamChoices>& chosen, size_t width) {
    if (op.params.empty()) return "\nparams:\n  (none)\n";
    if (chosen) {
        std::vector<std::string> given;
        for (const auto& [name, value] : *chosen) given.push_back(name + "=" + canonical_text(value));
        std::string out = "\nparams that apply with " + join(given) + ":\n";
        size_t left_out = 0;
        for (const ParamInfo& p : op.params) {
            if (param_applies(p, lookup(op, *chosen))) out += param_text(p, width);
            else ++left_out;
        }
        if (left_out > 0)
            out += "  (" + std::to_string(left_out) + " more that do not apply here: `fieldflow nodes " + op.name +
                   "` lists all)\n";
        return out;
    }
    std::vector<std::string> groups = {""}; // by applies_when text, in order of first appearance
    for (const ParamInfo& p : op.params) {
        const std::string when = applies_when_text(p.applies_when);
        if (std::find(groups.begin(), groups.end(), when) == groups.end()) groups.push_back(when);
    }
    std::string out;
    for (const std::string& group : groups) {
        std::string lines;
        for (const ParamInfo& p : op.params)
            if (applies_when_text(p.applies_when) == group) lines += param_text(p, width);
        if (lines.empty()) continue;
        out += group.empty() ? "\nparams:\n" : "\nparams when " + group + ":\n";
        out += lines;
    }
    return out;
}

void describe_op(const OpInfo& op, const std::optional<ParamChoices>& chosen, size_t width) {
    std::string out = op.name + "  (category " + op.category + "; plugin " + op.plugin_name + " " +
                      op.plugin_version + "; op version " + std::to_string(op.version) + ")\n";
    out += "plugin file: " + origin(op) + "\n";
    if (!op.doc.empty()) out += "\n" + wrap_text(op.doc, width) + "\n";
    out += ports_text("inputs", op.inputs, width);
    out += ports_text("outputs", op.outputs, width);
    out += params_text(op, chosen, width);
    out += "\ncaching: " + flags_text(op.flags) + "\n";
    std::fputs(out.c_str(), stdout);
}

nlohmann::json ports_json(const std::vector<PortInfo>& ports) {
    nlohmann::json out = nlohmann::json::array();
    for (const PortInfo& p : ports)
        out.push_back({{"name", p.name}, {"type", p.type}, {"optional", p.optional}, {"doc", p.doc}});
    return out;
}

nlohmann::json op_json(const OpInfo& op, const std::optional<ParamChoices>& chosen = std::nullopt) {
    nlohmann::json params = nlohmann::json::array();
    for (const ParamInfo& p : op.params) {
        if (chosen && !param_applies(p, lookup(op, *chosen))) continue;
        nlohmann::json param = {{"name", p.name}, {"kind", kind_name(p.kind)}, {"doc", p.doc},
                                {"required", !p.default_value.has_value()}};
        if (p.default_value) param["default"] = p.default_text;
        if (p.kind == FF_PARAM_ENUM) param["choices"] = p.choices;
        if (p.has_range) param["range"] = {p.min, p.max};
        if (!p.applies_when.empty()) param["applies_when"] = applies_when_text(p.applies_when);
        params.push_back(std::move(param));
    }
    return {{"name", op.name},       {"category", op.category},
            {"doc", op.doc},         {"plugin", op.plugin_name},
            {"plugin_version", op.plugin_version}, {"plugin_file", origin(op)},
            {"version", op.version},
            {"caching", flags_text(op.flags)},     {"inputs", ports_json(op.inputs)},
            {"outputs", ports_json(op.outputs)},   {"params", std::move(params)}};
}

std::unique_ptr<CommandLine> nodes_table() {
    auto cl = std::make_unique<CommandLine>(
        "nodes", "fieldflow nodes [OP [PARAM=VALUE]...] [--plugin FILE]... [--json]",
        "Lists the ops of the loaded plugins, grouped by category. With OP: its ports with types, "
        "its params with kind, default, range, choices and docs, grouped by when they apply; with "
        "PARAM=VALUE too (`fieldflow nodes Train encoding=hash_grid`), only the params that apply to those "
        "values. Exit code 2 when no plugin is found (the folders searched are listed).");
    add_positional(*cl, "op", "op to describe");
    add_positional(*cl, "where", "PARAM=VALUE: list only the params that apply with these values", -1);
    add_plugin_option(*cl);
    add_json_option(*cl);
    return cl;
}

int nodes_main(CommandLine& cl, const std::vector<std::string>&) {
    OpRegistry registry;
    const bool plugins_ok = load_registry(registry, cl);
    const bool json = cl.values.count("json") > 0;
    const size_t width = text_width(stdout);
    if (!cl.values.count("op")) {
        if (json) {
            nlohmann::json ops = nlohmann::json::array();
            for (const OpInfo* op : registry.by_category()) ops.push_back(op_json(*op));
            std::printf("%s\n", nlohmann::json({{"ops", ops}}).dump(2).c_str());
        } else {
            list_ops(registry, width);
        }
        return plugins_ok ? kExitOk : kExitInvalid;
    }
    const std::string name = cl.values["op"].as<std::string>();
    const OpInfo* op = registry.find(name);
    if (!op) {
        std::fprintf(stderr, "fieldflow nodes: error: unknown op '%s'%s\n", name.c_str(),
                     did_you_mean(name, registry.names()).c_str());
        return kExitInvalid;
    }
    std::optional<ParamChoices> chosen;
    if (cl.values.count("where")) {
        chosen.emplace();
        for (const std::string& assignment : cl.values["where"].as<std::vector<std::string>>()) {
            const size_t eq = assignment.find('=');
            const ParamInfo* param = eq == std::string::npos ? nullptr : op->find_param(assignment.substr(0, eq));
            if (!param) {
                std::fprintf(stderr, "fieldflow nodes: error: '%s' is not PARAM=VALUE for a param of %s%s\n",
                             assignment.c_str(), op->name.c_str(),
                             eq == std::string::npos ? ""
                                                     : did_you_mean(assignment.substr(0, eq), op->param_names()).c_str());
                return kExitInvalid;
            }
            ParamText text;
            text.scalar = assignment.substr(eq + 1);
            ParamParse parsed = parse_param(*param, text);
            if (!parsed.value) {
                std::fprintf(stderr, "fieldflow nodes: error: param '%s' %s\n", param->name.c_str(), parsed.error.c_str());
                return kExitInvalid;
            }
            (*chosen)[param->name] = std::move(*parsed.value);
        }
    }
    if (json) std::printf("%s\n", op_json(*op, chosen).dump(2).c_str());
    else describe_op(*op, chosen, width);
    return plugins_ok ? kExitOk : kExitInvalid;
}

const TableCommandRegistration registration{
    "nodes", "list the available ops, or describe one", nodes_table, nodes_main};

} // namespace
} // namespace fieldflow::host
