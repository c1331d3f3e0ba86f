// Graph variables: `${name}` inside param scalars, defaults from the file's `vars`, values from
// `--set name=value`. `$${` writes a literal `${`.
#pragma once

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/graph_file.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fieldflow::host {

// `--set` values in command-line order (a later one wins).
using VarOverrides = std::vector<std::pair<std::string, std::string>>;

// Splits "name=value" (the value may contain '='). Returns nullopt for a malformed argument.
std::optional<std::pair<std::string, std::string>> parse_set_argument(const std::string& arg);

class Variables {
public:
    // Defaults from the file, overridden by `sets`. A --set of an undeclared variable is an error
    // at 1:1 (it catches typos); a required variable left unset is reported where it is used.
    static Variables resolve(const GraphAst& graph, const VarOverrides& sets, Diagnostics& diags);

    // Expands the variables in one scalar. `context` prefixes messages ("node 'a': param 'p'").
    // Returns nullopt (after reporting) on an unknown, unset or unterminated variable.
    std::optional<std::string> expand(const ScalarAst& scalar, const std::string& context,
                                      Diagnostics& diags) const;

    // nullopt: not declared; optional holding nullopt: declared without a value.
    std::optional<std::optional<std::string>> value(const std::string& name) const;

    // Whether `scalar` refers to variables and every one of them keeps the graph's own value (no
    // --set chose it): the graph author's template, not a value the user picked.
    bool only_graph_values(const ScalarAst& scalar) const;

private:
    std::map<std::string, std::optional<std::string>> values_;
    std::set<std::string> set_by_user_;
};

} // namespace fieldflow::host
