// Checks a parsed graph against the loaded ops before anything runs, reporting every error with
// its position, and builds the runnable Graph.
#pragma once

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/graph_file.hpp>
#include <fieldflow/host/op_registry.hpp>
#include <fieldflow/host/variables.hpp>

#include <optional>
#include <string>

namespace fieldflow::host {

// Ops, params (kind, range, enum, finiteness, variables), inputs (nodes, ports, types), missing
// params and inputs, cycles, and each op's own validate() callback. nullopt if anything failed.
std::optional<Graph> validate_graph(const GraphAst& ast, const Variables& vars,
                                    const OpRegistry& registry, Diagnostics& diags);

// Parse + variables + validation of one file: what `check` and `run` do. `diags` names the file.
std::optional<Graph> load_graph(const std::string& path, const VarOverrides& sets,
                                const OpRegistry& registry, Diagnostics& diags);

// The same from text (tests, and graphs not stored in a file).
std::optional<Graph> load_graph_text(const std::string& text, const VarOverrides& sets,
                                     const OpRegistry& registry, Diagnostics& diags);

} // namespace fieldflow::host
