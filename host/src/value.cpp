#include <fieldflow/host/value.hpp>

namespace fieldflow::host {

Hash128 Value::content_hash() const {
    Hasher h;
    h.text("value").text(type).u64(is_image ? 1 : 0);
    if (is_image) {
        h.u64(width).u64(height).u64(channels).u64(bits).u64(pixels.size());
        h.bytes(pixels.data(), pixels.size() * sizeof(float));
    } else {
        h.u64(bytes.size()).bytes(bytes.data(), bytes.size());
    }
    return h.finish();
}

} // namespace fieldflow::host
