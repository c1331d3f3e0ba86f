#include <fieldflow/host/host_api.hpp>
#include <fieldflow/host/names.hpp>
#include <fieldflow/host/param_conditions.hpp>
#include <fieldflow/host/validate.hpp>

#include "file_path_checks.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

namespace fieldflow::host {
namespace {

std::string node_label(const std::string& name) { return "node '" + name + "'"; }

// Expands variables in a param's scalars and converts the result to its decl's kind.
std::optional<ParamValue> check_param(const ParamAst& param, const ParamInfo& info,
                                      const std::string& node, const Variables& vars,
                                      Diagnostics& diags) {
    const std::string context = node_label(node) + ": param '" + param.name + "'";
    ParamText text;
    std::vector<SourcePos> item_pos;
    if (param.is_sequence) {
        text.is_sequence = true;
        for (const ScalarAst& item : param.items) {
            if (item.is_null) {
                diags.error(item.pos, context + " has an empty list item");
                return std::nullopt;
            }
            auto expanded = vars.expand(item, context, diags);
            if (!expanded) return std::nullopt;
            text.items.push_back(*expanded);
            item_pos.push_back(item.pos);
        }
    } else if (param.scalar.is_null) {
        text.is_null = true;
    } else {
        auto expanded = vars.expand(param.scalar, context, diags);
        if (!expanded) return std::nullopt;
        text.scalar = *expanded;
    }
    ParamParse parsed = parse_param(info, text);
    if (!parsed.value) {
        SourcePos pos = param.value_pos;
        if (parsed.item >= 0 && size_t(parsed.item) < item_pos.size()) pos = item_pos[parsed.item];
        diags.error(pos, context + " " + parsed.error);
    }
    return parsed.value;
}

// Params of one node: unknown ones, values, missing required ones. False if a param the op
// declares failed (an unknown one is reported but leaves the declared ones usable: the op's own
// validate still runs, and may say why the graph names a param the op no longer has).
bool resolve_params(const NodeAst& ast, const OpInfo& op, const Variables& vars,
                    PlannedNode& node, Diagnostics& diags) {
    bool ok = true;
    std::map<std::string, const ParamAst*> given;
    for (const ParamAst& param : ast.params) {
        if (!op.find_param(param.name)) {
            std::vector<std::string> known = op.param_names();
            std::string hint = did_you_mean(param.name, known);
            if (hint.empty())
                hint = known.empty() ? "; " + op.name + " takes no params"
                                     : "; " + op.name + " takes " + join(known);
            diags.error(param.name_pos, node_label(ast.name) + ": unknown param '" + param.name +
                                            "'" + hint);
            continue;
        }
        given[param.name] = &param;
    }
    for (const ParamInfo& info : op.params) {
        auto it = given.find(info.name);
        if (it == given.end()) {
            if (!info.default_value) {
                diags.error(ast.name_pos, node_label(ast.name) + ": missing required param '" +
                                              info.name + "' (" + kind_name(info.kind) + ")");
                ok = false;
                continue;
            }
            node.params.push_back({&info, *info.default_value, ast.name_pos, true});
            continue;
        }
        auto value = check_param(*it->second, info, ast.name, vars, diags);
        if (!value) {
            ok = false;
            continue;
        }
        const ParamAst& written = *it->second;
        const bool from_graph_vars = !written.is_sequence && !written.scalar.is_null &&
                                     vars.only_graph_values(written.scalar);
        node.params.push_back({&info, std::move(*value), written.value_pos, false, from_graph_vars});
    }
    return ok;
}

// A param the graph sets, to other than its default, where it has no effect (applies_when): the
// node runs, but the value the user chose is not used, which deserves a word. A value that comes
// from the graph's own variables is the author's template for another setting (a hash table size
// beside `--set encoding=dense_grid`): the user chose nothing there, so it stays quiet.
void warn_params_without_effect(const PlannedNode& node, const std::string& file,
                                std::vector<Diagnostic>& warnings) {
    const ParamLookup value_of = [&](std::string_view name) {
        const ResolvedParam* p = node.param(name);
        return p ? &p->value : nullptr;
    };
    for (const ResolvedParam& p : node.params) {
        if (p.from_default || p.from_graph_vars) continue;
        if (p.info->default_value && *p.info->default_value == p.value) continue;
        const std::string why = failed_condition(*p.info, value_of);
        if (why.empty()) continue;
        warnings.push_back({file, p.pos,
                            node_label(node.name) + ": param '" + p.info->name + "' has no effect here: it applies when " +
                                applies_when_text(p.info->applies_when) + ", and " + why,
                            true});
    }
}

struct NodeIndex {
    std::map<std::string, size_t> by_name;
    std::vector<std::string> names;
};

// Inputs of one node: ports, references, ambiguity, types, missing inputs.
void resolve_inputs(const NodeAst& ast, const OpInfo* op, const std::vector<NodeAst>& all,
                    const NodeIndex& index, const OpRegistry& registry, PlannedNode& node,
                    Diagnostics& diags) {
    const std::string label = node_label(ast.name);
    for (const InputAst& input : ast.inputs) {
        const PortInfo* port = op ? op->find_input(input.port) : nullptr;
        if (op && !port) {
            std::vector<std::string> known = op->input_names();
            std::string hint = did_you_mean(input.port, known);
            if (hint.empty())
                hint = known.empty() ? "; " + op->name + " takes no inputs"
                                     : "; its inputs are " + join(known);
            diags.error(input.port_pos, label + ": op '" + op->name + "' has no input '" +
                                            input.port + "'" + hint);
        }
        const size_t dot = input.ref.find('.');
        const std::string source_name = input.ref.substr(0, dot);
        const bool port_given = dot != std::string::npos;
        const std::string source_port = port_given ? input.ref.substr(dot + 1) : std::string();
        auto found = index.by_name.find(source_name);
        if (found == index.by_name.end()) {
            diags.error(input.ref_pos, label + ": input '" + input.port +
                                           "' references unknown node '" + source_name + "'" +
                                           did_you_mean(source_name, index.names));
            continue;
        }
        const NodeAst& source = all[found->second];
        const OpInfo* source_op = source.has_op ? registry.find(source.op) : nullptr;
        if (!source_op) continue; // its own error was reported
        const PortInfo* out = nullptr;
        if (port_given) {
            out = source_op->find_output(source_port);
            if (!out) {
                std::vector<std::string> known = source_op->output_names();
                std::string hint = did_you_mean(source_port, known);
                diags.error(input.ref_pos, label + ": input '" + input.port + "': node '" +
                                               source_name + "' (" + source_op->name +
                                               ") has no output '" + source_port + "'" + hint +
                                               (known.empty() ? "; it has no outputs"
                                                              : "; its outputs are " + join(known)));
                continue;
            }
        } else if (source_op->outputs.size() == 1) {
            out = &source_op->outputs.front();
        } else if (source_op->outputs.empty()) {
            diags.error(input.ref_pos, label + ": input '" + input.port + "': node '" +
                                           source_name + "' (" + source_op->name +
                                           ") has no outputs");
            continue;
        } else {
            std::vector<std::string> choices;
            for (const PortInfo& p : source_op->outputs) choices.push_back(source_name + "." + p.name);
            diags.error(input.ref_pos, label + ": input '" + input.port + "': node '" +
                                           source_name + "' has several outputs; name one: " +
                                           join(choices));
            continue;
        }
        if (!port) continue;
        if (port->type != FF_TYPE_ANY && port->type != out->type) {
            diags.error(input.ref_pos, label + ": input '" + input.port + "' takes " + port->type +
                                           ", but '" + source_name + "." + out->name + "' is " +
                                           out->type);
            continue;
        }
        node.inputs.push_back({port->name, found->second, out->name});
    }
    if (!op) return;
    for (const PortInfo& port : op->inputs) {
        bool given = std::any_of(ast.inputs.begin(), ast.inputs.end(),
                                 [&](const InputAst& in) { return in.port == port.name; });
        if (!given && !port.optional)
            diags.error(ast.name_pos, label + ": missing input '" + port.name + "' (" + port.type + ")");
    }
    // Declaration order, so execution and cache keys do not depend on the file's order.
    std::stable_sort(node.inputs.begin(), node.inputs.end(),
                     [&](const InputEdge& a, const InputEdge& b) {
                         auto rank = [&](const std::string& p) {
                             for (size_t i = 0; i < op->inputs.size(); ++i)
                                 if (op->inputs[i].name == p) return i;
                             return op->inputs.size();
                         };
                         return rank(a.port) < rank(b.port);
                     });
}

// Kahn's algorithm, ties broken by file order. Returns the nodes left on or behind a cycle.
std::vector<size_t> topological_order(const std::vector<PlannedNode>& nodes,
                                      std::vector<size_t>& order) {
    const size_t n = nodes.size();
    std::vector<size_t> pending(n, 0);
    std::vector<std::vector<size_t>> consumers(n);
    for (size_t i = 0; i < n; ++i)
        for (const InputEdge& e : nodes[i].inputs) {
            ++pending[i];
            consumers[e.source].push_back(i);
        }
    std::set<size_t> ready;
    for (size_t i = 0; i < n; ++i)
        if (pending[i] == 0) ready.insert(i);
    while (!ready.empty()) {
        size_t i = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(i);
        for (size_t c : consumers[i])
            if (--pending[c] == 0) ready.insert(c);
    }
    std::vector<size_t> left;
    for (size_t i = 0; i < n; ++i)
        if (pending[i] != 0) left.push_back(i);
    return left;
}

// Reports each cycle once: for every strongly connected group, the shortest cycle through its
// earliest node, written in the direction data flows ("a -> b" : a feeds b).
void report_cycles(const std::vector<PlannedNode>& nodes, Diagnostics& diags) {
    const size_t n = nodes.size();
    std::vector<std::vector<size_t>> consumers(n);
    for (size_t i = 0; i < n; ++i)
        for (const InputEdge& e : nodes[i].inputs) consumers[e.source].push_back(i);
    for (auto& c : consumers) {
        std::sort(c.begin(), c.end());
        c.erase(std::unique(c.begin(), c.end()), c.end());
    }
    // Tarjan's strongly connected components.
    std::vector<int> index_of(n, -1), low(n, 0), component(n, -1);
    std::vector<bool> on_stack(n, false);
    std::vector<size_t> stack;
    int next_index = 0, components = 0;
    std::function<void(size_t)> visit = [&](size_t v) {
        index_of[v] = low[v] = next_index++;
        stack.push_back(v);
        on_stack[v] = true;
        for (size_t w : consumers[v]) {
            if (index_of[w] < 0) {
                visit(w);
                low[v] = std::min(low[v], low[w]);
            } else if (on_stack[w]) {
                low[v] = std::min(low[v], index_of[w]);
            }
        }
        if (low[v] == index_of[v]) {
            size_t w;
            do {
                w = stack.back();
                stack.pop_back();
                on_stack[w] = false;
                component[w] = components;
            } while (w != v);
            ++components;
        }
    };
    for (size_t v = 0; v < n; ++v)
        if (index_of[v] < 0) visit(v);

    std::set<int> reported;
    for (size_t start = 0; start < n; ++start) {
        const int c = component[start];
        if (reported.count(c)) continue;
        const bool self_loop =
            std::find(consumers[start].begin(), consumers[start].end(), start) != consumers[start].end();
        const bool group = std::count(component.begin(), component.end(), c) > 1;
        if (!self_loop && !group) continue;
        reported.insert(c);
        // Breadth-first search inside the group for the shortest way back to `start`.
        std::vector<long> parent(n, -1);
        std::deque<size_t> queue{start};
        std::vector<bool> seen(n, false);
        seen[start] = true;
        long last = -1;
        while (!queue.empty() && last < 0) {
            size_t v = queue.front();
            queue.pop_front();
            for (size_t w : consumers[v]) {
                if (w == start) {
                    last = long(v);
                    break;
                }
                if (component[w] == c && !seen[w]) {
                    seen[w] = true;
                    parent[w] = long(v);
                    queue.push_back(w);
                }
            }
        }
        std::vector<std::string> path;
        for (long v = last; v >= 0 && size_t(v) != start; v = parent[v]) path.push_back(nodes[v].name);
        path.push_back(nodes[start].name);
        std::reverse(path.begin(), path.end());
        path.push_back(nodes[start].name);
        diags.error(nodes[start].pos, node_label(nodes[start].name) + ": cycle " + join(path, " -> "));
    }
}

// The op's own validate() callback, with params available; errors point at the param. What it
// logs joins `graph`'s notes (or warnings) at the node's position.
void run_op_validate(const PlannedNode& node, Diagnostics& diags, Graph& graph) {
    const OpInfo& op = *node.op;
    if (!op.validate) return;
    ff_context ctx;
    ctx.node = &node;
    ctx.validating = true;
    ff_status status = FF_ERROR;
    try {
        status = op.validate(host_api(), &ctx, op.user);
    } catch (...) {
        ctx.error = "validate() threw an exception across the plugin ABI";
        status = FF_ERROR;
    }
    if (status == FF_OK) {
        for (auto& [level, text] : ctx.validate_log) {
            Diagnostic d{diags.file(), node.pos, node_label(node.name) + ": " + text};
            if (level == FF_LOG_WARNING) d.warning = true;
            else d.note = true;
            (d.warning ? graph.warnings : graph.notes).push_back(std::move(d));
        }
        return;
    }
    std::string message = ctx.error;
    if (message.empty())
        message = ctx.misuse.empty() ? "rejected its params" : ctx.misuse.front();
    const ResolvedParam* param = ctx.error_param.empty() ? nullptr : node.param(ctx.error_param);
    if (param)
        diags.error(param->pos, node_label(node.name) + ": param '" + ctx.error_param + "': " + message);
    else
        diags.error(node.pos, node_label(node.name) + ": " + message);
}

} // namespace

std::optional<Graph> validate_graph(const GraphAst& ast, const Variables& vars,
                                    const OpRegistry& registry, Diagnostics& diags) {
    const size_t errors_before = diags.size();
    Graph graph;
    graph.file = ast.file;
    graph.description = ast.description;

    NodeIndex index;
    for (size_t i = 0; i < ast.nodes.size(); ++i) {
        index.by_name[ast.nodes[i].name] = i;
        index.names.push_back(ast.nodes[i].name);
    }

    std::vector<bool> node_ok(ast.nodes.size(), true), params_ok(ast.nodes.size(), false);
    for (size_t i = 0; i < ast.nodes.size(); ++i) {
        const NodeAst& node_ast = ast.nodes[i];
        PlannedNode node;
        node.name = node_ast.name;
        node.pos = node_ast.name_pos;
        const OpInfo* op = node_ast.has_op ? registry.find(node_ast.op) : nullptr;
        if (node_ast.has_op && !op) {
            diags.error(node_ast.op_pos, node_label(node_ast.name) + ": unknown op '" + node_ast.op +
                                             "'" + did_you_mean(node_ast.op, registry.names()) +
                                             " (`fieldflow nodes` lists the ops; an op of a plugin "
                                             "that is not loaded needs --plugin FILE or "
                                             "FIELDFLOW_PLUGIN_PATH)");
        }
        node.op = op;
        node.overwrite = node_ast.overwrite;
        const size_t before = diags.size();
        params_ok[i] = op && resolve_params(node_ast, *op, vars, node, diags);
        resolve_inputs(node_ast, op, ast.nodes, index, registry, node, diags);
        if (!op || diags.size() != before) node_ok[i] = false;
        graph.nodes.push_back(std::move(node));
    }

    // A cycle can only be judged among inputs that resolved; unresolved ones were reported.
    std::vector<size_t> left = topological_order(graph.nodes, graph.order);
    if (!left.empty()) report_cycles(graph.nodes, diags);

    // The op's validate needs only its declared params: it runs where those resolved, so that its
    // errors join the rest (an unknown param or a bad input besides).
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (params_ok[i]) run_op_validate(graph.nodes[i], diags, graph);
        if (node_ok[i]) warn_params_without_effect(graph.nodes[i], diags.file(), graph.warnings);
    }
    check_file_paths(graph, diags);

    if (diags.size() != errors_before) return std::nullopt;
    return graph;
}

namespace {

// A parsed graph's variables resolved and the graph validated. Validation runs after a parse error
// too, reporting what it can, but only a cleanly parsed graph is returned.
std::optional<Graph> resolve_and_validate(const GraphAst& ast, const VarOverrides& sets,
                                          const OpRegistry& registry, Diagnostics& diags) {
    Variables vars = Variables::resolve(ast, sets, diags);
    const bool parsed = diags.empty();
    auto graph = validate_graph(ast, vars, registry, diags);
    if (!parsed) return std::nullopt;
    return graph;
}

} // namespace

std::optional<Graph> load_graph_text(const std::string& text, const VarOverrides& sets,
                                     const OpRegistry& registry, Diagnostics& diags) {
    return resolve_and_validate(parse_graph_text(text, diags), sets, registry, diags);
}

std::optional<Graph> load_graph(const std::string& path, const VarOverrides& sets,
                                const OpRegistry& registry, Diagnostics& diags) {
    return resolve_and_validate(parse_graph_file(path, diags), sets, registry, diags);
}

} // namespace fieldflow::host
