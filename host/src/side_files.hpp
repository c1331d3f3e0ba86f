// Side files (ABI 1.2 FF_PARAM_SIDE_OUTPUT): files an op writes under a path param besides its
// outputs (Train's snapshots, training log and curve). They travel with the node's cached result
// as extra entries of its output map, so a run that takes the result from a cache writes the same
// files, under the path the current graph gives, as a run that computed it.
#pragma once

#include <fieldflow/host/graph.hpp>
#include <fieldflow/host/value.hpp>

#include <map>
#include <set>
#include <string>

namespace fieldflow::host {

// True for the output-map entries that hold side files (never an op's port name).
bool is_side_file_entry(const std::string& name);

// Reads every side file the node reported (param -> paths) into `outputs`. Returns "" or what
// went wrong (a file that cannot be read, or one outside its param's path).
std::string collect_side_files(const PlannedNode& node,
                               const std::map<std::string, std::set<std::string>>& reported,
                               OutputMap& outputs);

// Writes the side files held in `outputs` under the node's current param values, each through a
// temporary file and a rename. Returns "" or what went wrong.
std::string materialise_side_files(const PlannedNode& node, const OutputMap& outputs);

} // namespace fieldflow::host
