// The "neural" plugin: Train, Infer, SaveModel, LoadModel, Report and Devices (one file each).
// Built-in plugins carry the program's version (part of every cache key of their ops).
#include <fieldflow/node.hpp>
#include <fieldflow/versions.hpp>

FF_PLUGIN("neural", FIELDFLOW_VERSION)
