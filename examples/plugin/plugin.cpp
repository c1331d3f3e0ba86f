// The plugin's entry point, exactly once per plugin: its name and version (part of the cache key
// of every op it provides).
#include <fieldflow/node.hpp>

FF_PLUGIN("example", EXAMPLE_VERSION)
