// Values that flow along the graph's edges: images (float pixels) and blobs (bytes: models, JSON,
// plugin-defined types). Immutable once produced and shared by every consumer.
#pragma once

#include <fieldflow/host/hash.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fieldflow::host {

struct Value {
    std::string type; // the producing port's type: "image", "model", "json", ...
    bool is_image = false;
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t channels = 0;
    uint32_t bits = 0;             // images: bits per sample of the source file (8, 16, 32); 0 unknown
    std::vector<float> pixels;     // images: height * width * channels
    std::vector<std::byte> bytes;  // blobs

    // A hash of the type and contents (downstream keys of ops that read the outside world).
    Hash128 content_hash() const;
    size_t byte_size() const { return is_image ? pixels.size() * sizeof(float) : bytes.size(); }
};

using ValuePtr = std::shared_ptr<const Value>;
using OutputMap = std::map<std::string, ValuePtr>; // output port -> value

} // namespace fieldflow::host
