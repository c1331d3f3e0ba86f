// A validated graph, ready to run: every op known, every param typed and checked, every input
// resolved to a producing node and port, nodes in a dependency order.
#pragma once

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/op_registry.hpp>
#include <fieldflow/host/param_value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fieldflow::host {

struct ResolvedParam {
    const ParamInfo* info = nullptr;
    ParamValue value;
    SourcePos pos;             // where it was written; the node's position for a default
    bool from_default = false;
    bool from_graph_vars = false; // written as ${var}s that all keep the graph's own values
};

struct InputEdge {
    std::string port;        // this node's input port
    size_t source = 0;       // index of the producing node in Graph::nodes
    std::string source_port; // its output port
};

struct PlannedNode {
    std::string name;
    SourcePos pos;
    const OpInfo* op = nullptr;
    std::vector<ResolvedParam> params; // in the op's declaration order, defaults filled in
    std::vector<InputEdge> inputs;     // connected inputs, in the op's declaration order
    bool overwrite = false;            // `overwrite: true`: may write a file the graph reads

    const ResolvedParam* param(std::string_view name) const;
    const InputEdge* input(std::string_view port) const;
};

struct Graph {
    std::string file;
    std::string description;
    std::vector<PlannedNode> nodes;
    std::vector<size_t> order; // a dependency order (producers before consumers)
    std::vector<Diagnostic> warnings; // found while loading; the graph runs all the same
    // What ops said in validate() (e.g. Train: the work and a time on the detected device):
    // shown by `check` and dry runs.
    std::vector<Diagnostic> notes;

    // Index of a node by name, or -1.
    long find(std::string_view name) const;
};

} // namespace fieldflow::host
