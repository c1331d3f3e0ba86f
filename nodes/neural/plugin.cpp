// The "neural" plugin: Train, Infer, SaveModel, LoadModel and Report (one file each).
#include <fieldflow/node.hpp>

FF_PLUGIN("neural", "1.0.0")
