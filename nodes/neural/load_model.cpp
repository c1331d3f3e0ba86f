// LoadModel: read a .ffm model file, with every damaged-file case reported as a clear error.
#include "model_input.hpp"

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
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (error || !fs::exists(status))
        throw ParamError("path", "model file '" + path + "' does not exist");
    if (fs::is_directory(status)) throw ParamError("path", "'" + path + "' is a folder, not a model file");
    if (fs::is_fifo(status)) throw ParamError("path", "'" + path + "' is a FIFO (named pipe), not a model file");
    if (!fs::is_regular_file(status))
        throw ParamError("path", "'" + path + "' is not a regular file (a device or socket), not a model file");
    const uintmax_t size = fs::file_size(path, error);
    if (error) throw ParamError("path", "cannot read model file '" + path + "': " + error.message());
    if (size > kMaxModelFileBytes)
        throw ParamError("path", "'" + path + "' is " + std::to_string(size) +
                                     " bytes, larger than any model file (at most " +
                                     std::to_string(kMaxModelFileBytes) + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ParamError("path", "cannot open model file '" + path + "': " + std::strerror(errno));
    std::vector<std::byte> bytes(static_cast<size_t>(size));
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    if (in.gcount() != std::streamsize(bytes.size()))
        throw Error("cannot read model file '" + path + "': it changed size while being read");
    return bytes;
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
