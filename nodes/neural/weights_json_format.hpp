// Model weights as JSON (SaveWeightsJson / LoadWeightsJson, `fieldflow train --weights`): the same
// model as the .ffm file, readable by any tool. Layout: docs/model-format.md, "JSON weights".
#pragma once

#include <fieldflow/engine/model_file.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace ff::neural {

// The model as JSON: configuration, training facts and every logical (unpadded) weight, one
// matrix per layer as rows [out][in] plus its biases.
nlohmann::json weights_to_json(const ff::engine::ModelFile& file);

// Parses and checks JSON weights; the result always encodes to a valid model file. Throws
// ff::Error naming `source` and the JSON path of the problem ("w.json: layers[1].bias has 63
// values, expected 64").
ff::engine::ModelFile weights_from_json(const nlohmann::json& json, const std::string& source);

} // namespace ff::neural
