// A graph file read into a syntax tree that remembers where everything was written.
// Only the file's shape is checked here (format version, mappings, names, duplicates); what the
// names mean (ops, params, references) is checked by validate.hpp.
#pragma once

#include <fieldflow/host/diagnostics.hpp>

#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host {

inline constexpr int kGraphFormatVersion = 1;

struct ScalarAst {
    std::string text;
    SourcePos pos;
    bool is_null = false; // `~`, `null` or nothing, unquoted
};

// A param's value as written: one scalar, or a sequence of scalars (list kinds).
struct ParamAst {
    std::string name;
    SourcePos name_pos;
    SourcePos value_pos;
    bool is_sequence = false;
    ScalarAst scalar;             // when !is_sequence
    std::vector<ScalarAst> items; // when is_sequence
};

// `port: node` or `port: node.port`
struct InputAst {
    std::string port;
    SourcePos port_pos;
    std::string ref;
    SourcePos ref_pos;
};

struct NodeAst {
    std::string name;
    SourcePos name_pos;
    std::string op;
    SourcePos op_pos;
    bool has_op = false;
    std::vector<ParamAst> params;
    std::vector<InputAst> inputs;
    bool overwrite = false; // `overwrite: true`: may write a file the graph reads
};

struct VarAst {
    std::string name;
    SourcePos name_pos;
    std::optional<std::string> default_value; // nullopt: `~`, must come from --set
};

struct GraphAst {
    std::string file; // the name used in messages
    int version = 0;
    std::string description;
    std::vector<VarAst> vars;
    std::vector<NodeAst> nodes; // in file order (the order has no meaning)
    bool yaml_ok = true;        // false: the file could not be read or is not YAML (nothing else
                                // about it is known, so nothing else is reported)
};

// Parses YAML (or JSON) text. Every problem is added to `diags`; the returned tree holds what
// could be read, so later checks can still report their own errors.
GraphAst parse_graph_text(const std::string& text, Diagnostics& diags);

// Reads the file at `path`; `diags.file()` is the name used in messages.
GraphAst parse_graph_file(const std::string& path, Diagnostics& diags);

} // namespace fieldflow::host
