// SaveModel: write a model to a .ffm file, atomically (a crash never leaves half a model).
#include "model_input.hpp"

#include "common/atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <string_view>

namespace ff::neural {
namespace {

void execute_save_model(Node& node) {
    std::span<const std::byte> bytes = node.blob("model");
    // Checked before writing, so a file on disk is always one LoadModel accepts.
    decode_model(bytes, "input 'model'");
    const std::string path = node.string("path");
    if (path.empty()) throw ParamError("path", "path is empty");
    // In chunks with a cancel check between them: the model of a large image's dense grid is
    // tens of megabytes. A cancel leaves no file.
    ff::nodes::atomic_write_file(
        path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), node,
        [&](size_t written, size_t total) { node.progress(written, total, "writing the model"); });
    node.log("saved model (" + std::to_string(bytes.size()) + " bytes) to " + path);
    std::span<std::byte> out = node.output_blob("model", bytes.size());
    std::copy(bytes.begin(), bytes.end(), out.begin());
}

} // namespace

FF_NODE(save_model) =
    ff::op("SaveModel", "neural")
        .doc("Writes a model to a file (docs/model-format.md; extension .ffm by convention) via a "
             "temporary file and a rename, so the file is never half-written (an interrupt leaves "
             "none). Passes the model through.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .version(1)
        .input("model", kModel, "model to save")
        .output("model", kModel, "the same model")
        .param_string("path", std::nullopt, "file to write, e.g. out/lake/model.ffm")
        .param_flags(FF_PARAM_WRITES_FILE)
        .execute(execute_save_model);

} // namespace ff::neural
