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

// One name per file: absolute, with symbolic links in its existing part resolved, so
// `a/../x.png`, `./x.png` and a link to it are the same file.
std::string file_identity(const std::string& path);

} // namespace fieldflow::host
