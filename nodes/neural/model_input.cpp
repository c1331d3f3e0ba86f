#include "model_input.hpp"

namespace ff::neural {

ff::engine::ModelFile decode_model(std::span<const std::byte> bytes, const std::string& source) {
    try {
        return ff::engine::decode_model_file(bytes, source);
    } catch (const ff::engine::ModelFileError& e) {
        throw Error(e.what());
    }
}

ff::engine::ModelFile read_model_input(const Node& node, const char* port) {
    return decode_model(node.blob(port), std::string("input '") + port + "'");
}

} // namespace ff::neural
