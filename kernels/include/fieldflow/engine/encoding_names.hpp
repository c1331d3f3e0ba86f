// The encodings' names: the one spelling that model files, JSON weights, Train's metrics and the
// benchmark write and read ("dense_grid", "coords", "hash_grid"). Each name is the encoding's own
// (its descriptor in kernels/src/encodings/), so a new encoding is named here by registering it.
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ff::engine {

// The name of `kind`; throws EngineError for a kind no encoding of this build has.
std::string_view encoding_name(EncodingKind kind);
// The kind named `name`, or nullopt where no encoding of this build has that name.
std::optional<EncodingKind> find_encoding(std::string_view name);
// Every encoding's name in kind order, for messages: "dense_grid, coords or hash_grid".
std::string encoding_names(std::string_view last_separator = " or ");

} // namespace ff::engine
