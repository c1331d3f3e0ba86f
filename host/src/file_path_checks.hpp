// Checks on the files a graph reads and writes (params flagged FF_PARAM_READS_FILE and
// FF_PARAM_WRITES_FILE): two nodes writing one file race, and a node writing a file the graph
// reads destroys its own input, unless that writer says `overwrite: true`.
#pragma once

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/graph.hpp>

#include <string>
#include <vector>

namespace fieldflow::host {

// Reports each conflict at the writing param, naming the other node with FILE:LINE:COL.
void check_file_paths(const Graph& graph, Diagnostics& diags);

// The folders a graph writes into (absolute, links resolved, each once): each written file's
// folder and each side-output folder. `fieldflow run` locks each, so two runs never mix their
// files in one folder.
std::vector<std::string> output_folders(const Graph& graph);

} // namespace fieldflow::host
