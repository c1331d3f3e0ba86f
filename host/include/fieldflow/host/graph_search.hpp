// Where a graph named on the command line is found: the path as given, then the same name with
// ".yaml" added, in the current folder, then in the installed examples (share/fieldflow/graphs
// beside the program: `fieldflow run lake`), so examples run by name from any folder.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host {

// The installed example graphs' folder: <prefix>/share/fieldflow/graphs beside the program, or,
// in a build tree (none installed there), the source tree's graphs/. "" when neither exists.
std::string examples_dir();

// The example graphs' names (file stems), sorted.
std::vector<std::string> example_names();

// The file `name` stands for, or nullopt: then the loader's error on `name` as given says it is
// missing, and `not_found_message` adds where else it was looked for.
std::optional<std::string> find_graph(const std::string& name);

// "note: 'lak' is not among the examples in DIR either (did you mean 'lake'?)"
std::string not_found_message(const std::string& name);

} // namespace fieldflow::host
