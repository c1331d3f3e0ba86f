// The engine's encodings, in EncodingKind order. A new encoding adds its descriptor here.
#include "encoding.hpp"

namespace ff::engine::detail {

extern const EncodingDescriptor kDenseGridEncoding;
extern const EncodingDescriptor kCoordsEncoding;
extern const EncodingDescriptor kHashGridEncoding;
extern const EncodingDescriptor kFrequencyEncoding;

const std::vector<const EncodingDescriptor*>& all_encodings() {
    static const std::vector<const EncodingDescriptor*> list = {
        &kDenseGridEncoding, &kCoordsEncoding, &kHashGridEncoding, &kFrequencyEncoding};
    return list;
}

const EncodingDescriptor& encoding_of(EncodingKind kind) {
    for (const EncodingDescriptor* e : all_encodings())
        if (e->kind == kind) return *e;
    throw EngineError("unknown encoding kind " + std::to_string(uint32_t(kind)));
}

const EncodingDescriptor* find_encoding(std::string_view name) {
    for (const EncodingDescriptor* e : all_encodings())
        if (e->name == name) return e;
    return nullptr;
}

std::string encoding_names(std::string_view last_separator) {
    std::string out;
    const auto& list = all_encodings();
    for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0) out += i + 1 == list.size() ? std::string(last_separator) : std::string(", ");
        out += list[i]->name;
    }
    return out;
}

} // namespace ff::engine::detail
