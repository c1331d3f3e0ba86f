// Finds and loads plugins (shared libraries exporting `fieldflow_plugin`), checks their ABI
// version and declarations, and registers their ops.
#pragma once

#include <fieldflow/host/op_registry.hpp>
#include <fieldflow/plugin.h>

#include <string>
#include <vector>

namespace fieldflow::host {

// Turns a plugin's description into host ops, checking the ABI version, struct sizes and every
// declaration (names, kinds, enum choices, that defaults parse). Returns "" or an error.
std::string read_plugin_info(const ff_plugin_info* info, const std::string& file,
                             std::vector<OpInfo>& ops);

// dlopens `path` (RTLD_LOCAL), calls its entry point and adds its ops. Returns "" or an error
// that names the file. The library stays loaded for the life of the process.
std::string load_plugin_file(const std::string& path, OpRegistry& registry);

// The folder of the running executable.
std::string executable_dir();

// Every folder plugins are looked for in, whether it exists or not: <exe dir>/plugins,
// <exe dir>/../lib/fieldflow/plugins, then each folder of FIELDFLOW_PLUGIN_PATH (':'-separated).
std::vector<std::string> plugin_search_candidates();

// Built-in folders (<exe dir>/plugins, <exe dir>/../lib/fieldflow/plugins), then each folder of
// FIELDFLOW_PLUGIN_PATH (':'-separated). Only folders that exist.
std::vector<std::string> plugin_search_dirs();

// Loads every *.so in the search folders (sorted by name within a folder), then each of
// `extra_files` (--plugin). Returns one message per plugin that failed.
std::vector<std::string> load_plugins(OpRegistry& registry,
                                      const std::vector<std::string>& extra_files,
                                      bool search_dirs = true);

} // namespace fieldflow::host
