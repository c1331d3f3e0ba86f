// SaveModel: write a model to a .ffm file, atomically (a crash never leaves half a model), with
// its weights stored at the precision asked for; what it passes on is the model as stored.
#include "model_input.hpp"

#include "common/atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <string_view>

namespace ff::neural {
namespace {

void execute_save_model(Node& node) {
    std::span<const std::byte> given = node.blob("model");
    // Checked before writing, so a file on disk is always one LoadModel accepts.
    ff::engine::ModelFile file = decode_model(given, "input 'model'");
    const std::string path = node.string("path");
    if (path.empty()) throw ParamError("path", "path is empty");
    // fp16 for grid and SIREN models (a splat model's positions are pixels: it stays fp32).
    const ff::engine::WeightPrecision precision =
        node.string("precision") == "fp16" && file.kind != ff::engine::ModelKind::splats
            ? ff::engine::WeightPrecision::fp16
            : ff::engine::WeightPrecision::fp32;
    std::vector<std::byte> stored;
    if (precision != file.precision) {
        file.precision = precision;
        try {
            stored = ff::engine::encode_model_file(file);
        } catch (const ff::engine::ModelFileError& e) {
            throw Error(e.what());
        }
    }
    const std::span<const std::byte> bytes = stored.empty() ? given : std::span<const std::byte>(stored);
    // In chunks with a cancel check between them: the model of a large image's dense grid is
    // tens of megabytes. A cancel leaves no file.
    ff::nodes::atomic_write_file(
        path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), node,
        [&](size_t written, size_t total) { node.progress(written, total, "writing the model"); });
    node.log("saved model (" + std::to_string(bytes.size()) + " bytes, " +
             std::string(ff::engine::weight_precision_name(precision)) + " weights) to " + path);
    std::span<std::byte> out = node.output_blob("model", bytes.size());
    std::copy(bytes.begin(), bytes.end(), out.begin());
}

} // namespace

FF_NODE(save_model) =
    ff::op("SaveModel", "neural")
        .doc("Writes a model to a file (docs/model-format.md; extension .ffm by convention) via a "
             "temporary file and a rename, so the file is never half-written (an interrupt leaves "
             "none). precision fp16 stores a grid or SIREN model's weights in half the bytes (a "
             "splat model stays fp32). Passes on the model as stored: an Infer after it renders "
             "the weights the file holds.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .version(2)
        .input("model", kModel, "model to save")
        .output("model", kModel, "the model as stored")
        .param_string("path", std::nullopt, "file to write, e.g. out/lake/model.ffm")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_enum("precision", std::string("fp32"), "fp32|fp16",
                    "how the weights are stored: fp32, or fp16 (half the bytes; the weights "
                    "rounded to the nearest half)")
        .execute(execute_save_model);

} // namespace ff::neural
