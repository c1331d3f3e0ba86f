// Reading a `model` input (model file bytes, docs/model-format.md) inside a node.
#pragma once

#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/node.hpp>

#include <span>
#include <string>

namespace ff::neural {

// Decodes model file bytes; a damaged or mismatched file becomes an ff::Error whose message
// starts with `source` ("input 'model': checksum mismatch (corrupt)").
ff::engine::ModelFile decode_model(std::span<const std::byte> bytes, const std::string& source);

// The model connected to input `port`.
ff::engine::ModelFile read_model_input(const Node& node, const char* port);

} // namespace ff::neural
