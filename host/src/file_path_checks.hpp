// Checks on the files a graph reads and writes (params flagged FF_PARAM_READS_FILE and
// FF_PARAM_WRITES_FILE): two nodes writing one file race, and a node writing a file the graph
// reads destroys its own input, unless that writer says `overwrite: true`.
#pragma once

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/graph.hpp>

namespace fieldflow::host {

// Reports each conflict at the writing param, naming the other node with FILE:LINE:COL.
void check_file_paths(const Graph& graph, Diagnostics& diags);

} // namespace fieldflow::host
