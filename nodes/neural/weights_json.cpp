// SaveWeightsJson / LoadWeightsJson: a model as JSON weights (weights_json_format.hpp), the format
// of `fieldflow train --weights` and `fieldflow render --weights`.
#include "model_input.hpp"
#include "weights_json_format.hpp"

#include "common/whole_file.hpp"

#include "common/atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ff::neural {
namespace {

void output_model(Node& node, const ff::engine::ModelFile& file) {
    std::vector<std::byte> bytes;
    try {
        bytes = ff::engine::encode_model_file(file);
    } catch (const ff::engine::ModelFileError& e) {
        throw Error(e.what());
    }
    std::span<std::byte> out = node.output_blob("model", bytes.size());
    std::copy(bytes.begin(), bytes.end(), out.begin());
}

void execute_save(Node& node) {
    const ff::engine::ModelFile file = read_model_input(node, "model");
    const std::string path = node.string("path");
    if (path.empty()) throw ParamError("path", "path is empty");
    ff::nodes::atomic_write_file(path, weights_to_json(file).dump() + "\n");
    node.log("saved " + std::string(ff::engine::model_kind_name(file.kind)) + " weights to " + path);
    output_model(node, file);
}

// Far above the JSON of any model the engine trains (a few hundred MB for the largest grids),
// low enough that a wrong path to a huge file fails at once instead of exhausting memory.
constexpr uintmax_t kMaxWeightsJsonBytes = uintmax_t(8) << 30;

void execute_load(Node& node) {
    const std::string path = node.string("path");
    std::vector<unsigned char> text;
    try {
        text = ff::nodes::read_regular_file(path, kMaxWeightsJsonBytes, "weights file");
    } catch (const std::runtime_error& e) {
        throw ParamError("path", "'" + path + "' " + e.what());
    }
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
    if (j.is_discarded()) throw Error(path + ": not valid JSON");
    output_model(node, weights_from_json(j, path));
}

} // namespace

FF_NODE(save_weights_json) =
    ff::op("SaveWeightsJson", "neural")
        .doc("Writes a model's weights as JSON (docs/model-format.md, 'JSON weights'): "
             "configuration and every layer's weights and biases, readable by any tool; written "
             "via a temporary file and a rename. Passes the model through.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .version(1)
        .input("model", kModel, "model to save")
        .output("model", kModel, "the same model")
        .param_string("path", std::nullopt, "JSON file to write, e.g. out/siren.json")
        .param_flags(FF_PARAM_WRITES_FILE)
        .execute(execute_save);

FF_NODE(load_weights_json) =
    ff::op("LoadWeightsJson", "neural")
        .doc("Reads JSON weights written by SaveWeightsJson (or `fieldflow train --weights`) "
             "and outputs the model, checked as strictly as a model file.")
        .flags(FF_OP_READS_OUTSIDE)
        .version(1)
        .output("model", kModel, "the model")
        .param_string("path", std::nullopt, "JSON weights file")
        .param_flags(FF_PARAM_READS_FILE)
        .execute(execute_load);

} // namespace ff::neural
