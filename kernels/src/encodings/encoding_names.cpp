// The public face of the encodings' registry (registry.cpp): names only.
#include "fieldflow/engine/encoding_names.hpp"
#include "encoding.hpp"

namespace ff::engine {

std::string_view encoding_name(EncodingKind kind) { return detail::encoding_of(kind).name; }

std::optional<EncodingKind> find_encoding(std::string_view name) {
    const detail::EncodingDescriptor* e = detail::find_encoding(name);
    return e ? std::optional<EncodingKind>(e->kind) : std::nullopt;
}

std::string encoding_names(std::string_view last_separator) { return detail::encoding_names(last_separator); }

} // namespace ff::engine
