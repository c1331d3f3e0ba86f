#include <fieldflow/host/graph_file.hpp>

#include <algorithm>
#include <fieldflow/host/names.hpp>

#include <fieldflow/host/regular_file.hpp>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace fieldflow::host {
namespace {

SourcePos pos_of(const YAML::Node& node) {
    YAML::Mark mark = node.Mark();
    if (mark.is_null()) return {};
    return {mark.line + 1, mark.column + 1};
}

const char* shape_name(const YAML::Node& node) {
    switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "empty";
    default: return "undefined";
    }
}

bool is_plain_null(const YAML::Node& node) {
    if (node.IsNull()) return true;
    if (!node.IsScalar() || node.Tag() == "!") return false; // quoted: a string
    const std::string& s = node.Scalar();
    return s == "~" || s == "null" || s == "Null" || s == "NULL";
}

ScalarAst scalar_of(const YAML::Node& node) {
    ScalarAst s;
    s.pos = pos_of(node);
    s.is_null = is_plain_null(node);
    if (!s.is_null) s.text = node.Scalar();
    return s;
}

// Iterates a mapping's entries in file order, reporting duplicate keys (yaml-cpp keeps them all
// and a lookup silently returns the first) and non-scalar keys. `what` names the mapping.
template <typename Fn>
void for_each_entry(const YAML::Node& map, const std::string& what, Diagnostics& diags, Fn&& fn) {
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
        // By value: yaml-cpp's iterator returns its pair through a temporary proxy, so a
        // reference to `it->first` dangles once this statement ends.
        const YAML::Node key = it->first;
        if (!key.IsScalar()) {
            diags.error(pos_of(key), what + ": keys must be names, not " + shape_name(key));
            continue;
        }
        if (!seen.insert(key.Scalar()).second) {
            diags.error(pos_of(key), what + ": duplicate key '" + key.Scalar() + "'");
            continue;
        }
        fn(key.Scalar(), key, it->second);
    }
}

void parse_vars(const YAML::Node& vars, GraphAst& graph, Diagnostics& diags) {
    if (vars.IsNull()) return;
    if (!vars.IsMap()) {
        diags.error(pos_of(vars), std::string("'vars' must be a mapping of name: default, not ") +
                                      shape_name(vars));
        return;
    }
    for_each_entry(vars, "vars", diags, [&](const std::string& name, const YAML::Node& key,
                                            const YAML::Node& value) {
        if (!is_valid_name(name)) {
            diags.error(pos_of(key), "variable '" + name +
                                         "': a name is letters, digits, '_' and '-', starting "
                                         "with a letter or '_'");
            return;
        }
        VarAst var{name, pos_of(key), std::nullopt};
        if (is_plain_null(value)) {
            // required: given with --set
        } else if (value.IsScalar()) {
            var.default_value = value.Scalar();
        } else {
            diags.error(pos_of(value), "variable '" + name + "': a default must be a scalar, not " +
                                           shape_name(value) + " (quote a list: \"[1, 2]\")");
            return;
        }
        graph.vars.push_back(std::move(var));
    });
}

void parse_params(const YAML::Node& params, NodeAst& node, Diagnostics& diags) {
    const std::string what = "node '" + node.name + "'";
    if (params.IsNull()) return;
    if (!params.IsMap()) {
        diags.error(pos_of(params), what + ": 'params' must be a mapping, not " + shape_name(params));
        return;
    }
    for_each_entry(params, what + ": params", diags, [&](const std::string& name,
                                                         const YAML::Node& key,
                                                         const YAML::Node& value) {
        ParamAst param;
        param.name = name;
        param.name_pos = pos_of(key);
        param.value_pos = pos_of(value);
        if (value.IsSequence()) {
            param.is_sequence = true;
            for (const YAML::Node& item : value) {
                if (!item.IsScalar() && !item.IsNull()) {
                    diags.error(pos_of(item), what + ": param '" + name +
                                                  "': list items must be scalars, not " +
                                                  shape_name(item));
                    return;
                }
                param.items.push_back(scalar_of(item));
            }
        } else if (value.IsMap()) {
            diags.error(pos_of(value), what + ": param '" + name +
                                           "' must be a scalar or a list, not a mapping");
            return;
        } else {
            param.scalar = scalar_of(value);
            if (value.IsNull()) param.scalar.pos = param.name_pos; // `p:` has no value position
        }
        node.params.push_back(std::move(param));
    });
}

void parse_inputs(const YAML::Node& inputs, NodeAst& node, Diagnostics& diags) {
    const std::string what = "node '" + node.name + "'";
    if (inputs.IsNull()) return;
    if (!inputs.IsMap()) {
        diags.error(pos_of(inputs), what + ": 'inputs' must be a mapping of port: node or "
                                           "port: node.port, not " + shape_name(inputs));
        return;
    }
    for_each_entry(inputs, what + ": inputs", diags, [&](const std::string& port,
                                                         const YAML::Node& key,
                                                         const YAML::Node& value) {
        if (!value.IsScalar() || is_plain_null(value)) {
            diags.error(value.IsNull() ? pos_of(key) : pos_of(value),
                        what + ": input '" + port + "' must name a node ('node' or 'node.port')");
            return;
        }
        node.inputs.push_back({port, pos_of(key), value.Scalar(), pos_of(value)});
    });
}

const std::vector<std::string> kNodeKeys = {"op", "params", "inputs", "overwrite"};

void parse_node(const std::string& name, const YAML::Node& key, const YAML::Node& body,
                GraphAst& graph, Diagnostics& diags) {
    NodeAst node;
    node.name = name;
    node.name_pos = pos_of(key);
    const std::string what = "node '" + name + "'";
    if (!is_valid_name(name)) {
        diags.error(node.name_pos, what + ": a node name is letters, digits, '_' and '-', "
                                          "starting with a letter or '_'");
        return;
    }
    if (!body.IsMap()) {
        diags.error(body.IsNull() ? node.name_pos : pos_of(body),
                    what + ": must be a mapping with 'op' (and optional 'params', 'inputs')");
        return;
    }
    for_each_entry(body, what, diags, [&](const std::string& field, const YAML::Node& field_key,
                                          const YAML::Node& value) {
        if (field == "op") {
            if (!value.IsScalar() || is_plain_null(value)) {
                diags.error(value.IsNull() ? pos_of(field_key) : pos_of(value),
                            what + ": 'op' must be an op name");
                return;
            }
            node.op = value.Scalar();
            node.op_pos = pos_of(value);
            node.has_op = true;
        } else if (field == "params") {
            parse_params(value, node, diags);
        } else if (field == "inputs") {
            parse_inputs(value, node, diags);
        } else if (field == "overwrite") {
            if (!value.IsScalar() || (value.Scalar() != "true" && value.Scalar() != "false")) {
                diags.error(value.IsNull() ? pos_of(field_key) : pos_of(value),
                            what + ": 'overwrite' must be true or false");
                return;
            }
            node.overwrite = value.Scalar() == "true";
        } else {
            diags.error(pos_of(field_key), what + ": unknown key '" + field + "'" +
                                               did_you_mean(field, kNodeKeys) +
                                               "; a node has op, params, inputs, overwrite");
        }
    });
    if (!node.has_op && body.IsMap()) {
        // Report the node even without its op, so a missing op is one error, not several.
        diags.error(node.name_pos, what + ": missing 'op'");
    }
    graph.nodes.push_back(std::move(node));
}

// An unquoted ${...} inside a flow mapping ({...}) ends the mapping at its '}': the usual cause
// of a flow error in a graph that uses variables.
std::string quoting_hint(const std::string& text, const std::string& message) {
    if (message.find("flow") == std::string::npos || text.find("${") == std::string::npos) return "";
    return " (a ${variable} inside {...} must be quoted: write {path: \"${input}\"}, not "
           "{path: ${input}})";
}

const std::vector<std::string> kTopKeys = {"fieldflow", "description", "vars", "nodes"};

} // namespace

GraphAst parse_graph_text(const std::string& text, Diagnostics& diags) {
    GraphAst graph;
    graph.file = diags.file();
    // yaml-cpp reads a NUL byte as the end of a quoted scalar's escape or of the stream, and its
    // message then names another place: name the byte itself, where it is.
    if (const size_t nul = text.find('\0'); nul != std::string::npos) {
        const size_t line_start = text.rfind('\n', nul) == std::string::npos ? 0 : text.rfind('\n', nul) + 1;
        const int line = int(std::count(text.begin(), text.begin() + std::ptrdiff_t(nul), '\n')) + 1;
        diags.error({line, int(nul - line_start) + 1},
                    "a NUL byte: a graph file is text (is this a binary file, or was it damaged?)");
        graph.yaml_ok = false;
        return graph;
    }
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this is only "bad file".
        diags.error({e.mark.line + 1, e.mark.column + 1},
                    "YAML nesting deeper than " + std::to_string(e.depth() - 1) +
                        " levels; a graph file needs only a few (fieldflow > nodes > node > params)");
        graph.yaml_ok = false;
        return graph;
    } catch (const YAML::ParserException& e) {
        diags.error({e.mark.line + 1, e.mark.column + 1}, "YAML syntax: " + e.msg + quoting_hint(text, e.msg));
        graph.yaml_ok = false;
        return graph;
    } catch (const YAML::Exception& e) {
        diags.error({}, std::string("YAML: ") + e.what());
        graph.yaml_ok = false;
        return graph;
    }
    if (!root.IsMap()) {
        diags.error(root.IsNull() ? SourcePos{} : pos_of(root),
                    "a graph file is a mapping with 'fieldflow: 1' and 'nodes'");
        return graph;
    }

    bool has_version = false, has_nodes = false;
    for_each_entry(root, "graph", diags, [&](const std::string& field, const YAML::Node& key,
                                             const YAML::Node& value) {
        if (field == "fieldflow") {
            has_version = true;
            int version = 0;
            if (value.IsScalar() && YAML::convert<int>::decode(value, version) &&
                version == kGraphFormatVersion) {
                graph.version = version;
            } else {
                diags.error(value.IsNull() ? pos_of(key) : pos_of(value),
                            "unsupported format version '" +
                                (value.IsScalar() ? value.Scalar() : std::string(shape_name(value))) +
                                "' (this fieldflow reads 'fieldflow: " +
                                std::to_string(kGraphFormatVersion) + "')");
            }
        } else if (field == "description") {
            if (value.IsScalar()) graph.description = value.Scalar();
            else if (!value.IsNull())
                diags.error(pos_of(value), "'description' must be text");
        } else if (field == "vars") {
            parse_vars(value, graph, diags);
        } else if (field == "nodes") {
            has_nodes = true;
            if (!value.IsMap()) {
                diags.error(value.IsNull() ? pos_of(key) : pos_of(value),
                            std::string("'nodes' must be a mapping of node name: node, not ") +
                                shape_name(value));
                return;
            }
            for_each_entry(value, "nodes", diags, [&](const std::string& name,
                                                      const YAML::Node& name_key,
                                                      const YAML::Node& body) {
                parse_node(name, name_key, body, graph, diags);
            });
        } else {
            diags.error(pos_of(key), "unknown top-level key '" + field + "'" +
                                         did_you_mean(field, kTopKeys) +
                                         "; a graph has fieldflow, description, vars, nodes");
        }
    });
    if (!has_version)
        diags.error({}, "missing 'fieldflow: " + std::to_string(kGraphFormatVersion) +
                            "' (the format version)");
    if (!has_nodes) diags.error({}, "missing 'nodes' (the mapping of node name: node)");
    return graph;
}

GraphAst parse_graph_file(const std::string& path, Diagnostics& diags) {
    // A graph is a few kB: a larger file is not one (and is refused before it is read).
    constexpr size_t kMaxGraphBytes = size_t(16) << 20;
    std::string text, error;
    switch (read_regular_file(path, text, error, kMaxGraphBytes)) {
    case ReadStatus::ok: return parse_graph_text(text, diags);
    case ReadStatus::missing: error = "cannot be read: " + std::string(std::strerror(ENOENT)); break;
    case ReadStatus::failed: break;
    }
    // "cannot read the graph file: No such file or directory", "the graph path is a folder, not a file"
    diags.error({}, error.rfind("cannot be read: ", 0) == 0
                        ? "cannot read the graph file: " + error.substr(16)
                        : "the graph path " + error + "; give a graph file (.yaml)");
    GraphAst graph;
    graph.file = diags.file();
    graph.yaml_ok = false;
    return graph;
}

} // namespace fieldflow::host
