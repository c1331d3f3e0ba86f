// The "core" plugin's entry point. Its ops register themselves (FF_NODE) in the other files.
// Built-in plugins carry the program's version (part of every cache key of their ops).
#include <fieldflow/node.hpp>
#include <fieldflow/versions.hpp>

FF_PLUGIN("core", FIELDFLOW_VERSION)
