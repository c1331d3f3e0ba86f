// `fieldflow nodes [OP]`: the ops the loaded plugins provide.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/names.hpp>

#include <cctype>
#include <cstdio>
#include <map>

namespace po = boost::program_options;

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

// Where an op came from: the plugin file, or "(built into the program)" for in-process ops.
std::string origin(const OpInfo& op) {
    return op.plugin_file.empty() ? "(built into the program)" : op.plugin_file;
}

// Each op with the plugin it came from, then each plugin with its version and file, so an op
// that behaves unexpectedly can be traced to the library that provided it.
void list_ops(const OpRegistry& registry) {
    std::string category;
    std::map<std::string, std::string> plugins; // "name version" -> file
    for (const OpInfo* op : registry.by_category()) {
        if (op->category != category) {
            category = op->category;
            std::printf("%s%s:\n", category == registry.by_category().front()->category ? "" : "\n",
                        category.c_str());
        }
        std::printf("  %-20s %-10s %s\n", op->name.c_str(), op->plugin_name.c_str(),
                    first_sentence(op->doc).c_str());
        plugins[op->plugin_name + " " + op->plugin_version] = origin(*op);
    }
    if (registry.size() == 0) {
        std::printf("no ops: no plugin was found\n");
        return;
    }
    std::printf("\nplugins:\n");
    for (const auto& [name, file] : plugins) std::printf("  %-20s %s\n", name.c_str(), file.c_str());
}

void print_ports(const char* title, const std::vector<PortInfo>& ports) {
    std::printf("\n%s:\n", title);
    if (ports.empty()) std::printf("  (none)\n");
    for (const PortInfo& p : ports)
        std::printf("  %-16s %-8s%s %s\n", p.name.c_str(), p.type.c_str(),
                    p.optional ? " (optional)" : "", p.doc.c_str());
}

std::string flags_text(uint32_t flags) {
    std::vector<std::string> parts;
    if (flags & FF_OP_CACHE_ON_DISK) parts.push_back("results kept in the disk cache");
    if (flags & FF_OP_READS_OUTSIDE) parts.push_back("reads files (always runs)");
    if (flags & FF_OP_WRITES_OUTSIDE) parts.push_back("writes files (always runs)");
    if (parts.empty()) parts.push_back("pure (results cached in memory)");
    return join(parts, "; ");
}

void describe_op(const OpInfo& op) {
    std::printf("%s  (category %s; plugin %s %s; op version %u)\n", op.name.c_str(),
                op.category.c_str(), op.plugin_name.c_str(), op.plugin_version.c_str(), op.version);
    std::printf("plugin file: %s\n", origin(op).c_str());
    if (!op.doc.empty()) std::printf("\n%s\n", op.doc.c_str());
    print_ports("inputs", op.inputs);
    print_ports("outputs", op.outputs);
    std::printf("\nparams:\n");
    if (op.params.empty()) std::printf("  (none)\n");
    for (const ParamInfo& p : op.params) {
        std::string kind = kind_name(p.kind);
        if (p.kind == FF_PARAM_ENUM) kind += " " + join(p.choices, "|");
        if (p.has_range) kind += " " + range_text(p);
        std::string def = p.default_value ? "default " + p.default_text : "required";
        std::printf("  %-16s %s, %s\n", p.name.c_str(), kind.c_str(), def.c_str());
        if (!p.doc.empty()) std::printf("  %-16s %s\n", "", p.doc.c_str());
    }
    std::printf("\ncaching: %s\n", flags_text(op.flags).c_str());
}

int nodes_main(const std::vector<std::string>& args) {
    CommandLine cl("nodes", "fieldflow nodes [OP] [--plugin FILE]...",
                   "Lists the ops of the loaded plugins, grouped by category. With OP: its ports "
                   "with types, its params with kind, default, range, choices and docs.");
    cl.options.add_options()("op", po::value<std::string>(), "op to describe");
    cl.positional.add("op", 1);
    add_plugin_option(cl);
    if (auto code = cl.parse(args)) return *code;

    OpRegistry registry;
    const bool plugins_ok = load_registry(registry, cl);
    if (!cl.values.count("op")) {
        list_ops(registry);
        return plugins_ok ? kExitOk : kExitInvalid;
    }
    const std::string name = cl.values["op"].as<std::string>();
    const OpInfo* op = registry.find(name);
    if (!op) {
        std::fprintf(stderr, "fieldflow nodes: error: unknown op '%s'%s\n", name.c_str(),
                     did_you_mean(name, registry.names()).c_str());
        return kExitInvalid;
    }
    describe_op(*op);
    return plugins_ok ? kExitOk : kExitInvalid;
}

const CommandRegistration registration{
    {"nodes", "list the available ops, or describe one", nodes_main}};

} // namespace
} // namespace fieldflow::host
