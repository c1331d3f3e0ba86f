// The "core" plugin's entry point. Its ops register themselves (FF_NODE) in the other files.
#include <fieldflow/node.hpp>

FF_PLUGIN("core", "1.0.0")
