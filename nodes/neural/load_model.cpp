// LoadModel: read a .ffm model file, with every damaged-file case reported as a clear error.
#include "model_input.hpp"

#include "common/whole_file.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ff::neural {
namespace {

// Far above any model the engine can train (a 65536^2 x 3 grid is 48 GiB; real ones are MBs),
// low enough that a wrong path to a huge file fails fast instead of exhausting memory.
constexpr uintmax_t kMaxModelFileBytes = uintmax_t(4) << 30;

std::vector<std::byte> read_file(const std::string& path) {
    std::vector<unsigned char> raw;
    try {
        raw = ff::nodes::read_regular_file(path, kMaxModelFileBytes, "model file");
    } catch (const std::runtime_error& e) {
        throw ParamError("path", "'" + path + "' " + e.what());
    }
    const auto* first = reinterpret_cast<const std::byte*>(raw.data());
    return std::vector<std::byte>(first, first + raw.size());
}

void execute_load_model(Node& node) {
    const std::string path = node.string("path");
    std::vector<std::byte> bytes = read_file(path);
    ff::engine::ModelFile file = decode_model(bytes, path);
    const auto& c = file.model.config;
    const std::string what =
        file.kind == ff::engine::ModelKind::splats
            ? std::to_string(file.splats.config.count) + " Gaussian splats"
            : ff::engine::model_summary(c);
    node.log("loaded " + path + ": " + what + ", trained on a " + std::to_string(file.image_width) + "x" +
             std::to_string(file.image_height) + " image for " +
             std::to_string(file.training.steps) + " steps");
    std::span<std::byte> out = node.output_blob("model", bytes.size());
    std::copy(bytes.begin(), bytes.end(), out.begin());
}

} // namespace

FF_NODE(load_model) =
    ff::op("LoadModel", "neural")
        .doc("Reads a model file written by SaveModel (docs/model-format.md). A truncated, "
             "corrupt, wrong-version or inconsistent file is an error saying which.")
        .flags(FF_OP_READS_OUTSIDE)
        .version(1)
        .output("model", kModel, "the model")
        .param_string("path", std::nullopt, "model file to read, e.g. out/lake/model.ffm")
        .param_flags(FF_PARAM_READS_FILE)
        .execute(execute_load_model);

} // namespace ff::neural
