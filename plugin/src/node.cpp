// Node: typed access to one execution's inputs, params and outputs through the host API.
// Every getter turns a refusal by the host (unknown name, wrong kind, unconnected input) into an
// ff::Error naming the port or param, which the SDK reports through set_error.
#include <fieldflow/node.hpp>

#include <cstddef>
#include <cstring>

namespace ff {

namespace {

[[noreturn]] void param_misuse(const char* name, const char* kind) {
    throw Error(std::string("internal error: op reads param '") + (name ? name : "(null)") +
                "' as " + kind + ", but it has no such param of that kind");
}

} // namespace

std::optional<ImageView> Node::optional_image(const char* port) const {
    ff_image image{};
    image.struct_size = sizeof(ff_image);
    if (!host_->input_image(ctx_, port, &image)) return std::nullopt;
    if (image.width == 0 || image.height == 0 || image.channels == 0 || !image.pixels)
        throw Error(std::string("input '") + port + "' is an empty image (" +
                    std::to_string(image.width) + "x" + std::to_string(image.height) + "x" +
                    std::to_string(image.channels) + ")");
    return ImageView{image.width, image.height, image.channels, image.pixels, image.bits};
}

ImageView Node::image(const char* port) const {
    if (auto view = optional_image(port)) return *view;
    throw Error(std::string("input '") + port + "' is not connected (or is not an image)");
}

std::optional<std::span<const std::byte>> Node::optional_blob(const char* port) const {
    size_t size = 0;
    const void* data = host_->input_blob(ctx_, port, &size);
    if (!data) return std::nullopt;
    return std::span<const std::byte>(static_cast<const std::byte*>(data), size);
}

std::span<const std::byte> Node::blob(const char* port) const {
    if (auto bytes = optional_blob(port)) return *bytes;
    throw Error(std::string("input '") + port + "' is not connected (or is not a blob)");
}

int64_t Node::integer(const char* name) const {
    int64_t value = 0;
    if (!host_->param_int(ctx_, name, &value)) param_misuse(name, "an int");
    return value;
}

double Node::number(const char* name) const {
    double value = 0;
    if (!host_->param_float(ctx_, name, &value)) param_misuse(name, "a float");
    return value;
}

bool Node::flag(const char* name) const {
    int32_t value = 0;
    if (!host_->param_bool(ctx_, name, &value)) param_misuse(name, "a bool");
    return value != 0;
}

std::string Node::string(const char* name) const {
    const char* value = nullptr;
    if (!host_->param_string(ctx_, name, &value)) param_misuse(name, "a string");
    return value ? std::string(value) : std::string();
}

std::vector<int64_t> Node::integers(const char* name) const {
    int64_t count = host_->param_int_list(ctx_, name, nullptr, 0);
    if (count < 0) param_misuse(name, "an int list");
    std::vector<int64_t> values(static_cast<size_t>(count));
    if (count > 0 && host_->param_int_list(ctx_, name, values.data(), values.size()) != count)
        param_misuse(name, "an int list");
    return values;
}

std::vector<std::string> Node::strings(const char* name) const {
    int64_t count = host_->param_string_list(ctx_, name, nullptr, 0);
    if (count < 0) param_misuse(name, "a string list");
    std::vector<const char*> raw(static_cast<size_t>(count), nullptr);
    if (count > 0 && host_->param_string_list(ctx_, name, raw.data(), raw.size()) != count)
        param_misuse(name, "a string list");
    std::vector<std::string> values;
    values.reserve(raw.size());
    for (const char* s : raw) values.emplace_back(s ? s : "");
    return values;
}

float* Node::output_image(const char* port, uint32_t width, uint32_t height, uint32_t channels) {
    if (width == 0 || height == 0 || channels == 0)
        throw Error(std::string("output '") + port + "': refusing to produce an empty image (" +
                    std::to_string(width) + "x" + std::to_string(height) + "x" +
                    std::to_string(channels) + ")");
    float* pixels = host_->output_image(ctx_, port, width, height, channels);
    if (!pixels)
        throw Error(std::string("output '") + port + "' (" + std::to_string(width) + "x" +
                    std::to_string(height) + "x" + std::to_string(channels) +
                    ") could not be allocated: unknown port, written twice, or out of memory");
    return pixels;
}

std::span<std::byte> Node::output_blob(const char* port, size_t size) {
    void* data = host_->output_blob(ctx_, port, size);
    if (!data && size > 0)
        throw Error(std::string("output '") + port + "' (" + std::to_string(size) +
                    " bytes) could not be allocated: unknown port, written twice, or out of memory");
    return {static_cast<std::byte*>(data), data ? size : 0};
}

void Node::output_text(const char* port, std::string_view text) {
    std::span<std::byte> out = output_blob(port, text.size());
    if (!text.empty()) std::memcpy(out.data(), text.data(), text.size());
}

void Node::log(std::string_view message, ff_log_level level) const {
    std::string line(message);
    host_->log(ctx_, level, line.c_str());
}

void Node::progress(uint64_t done, uint64_t total, std::string_view detail) const {
    std::string text(detail);
    host_->progress(ctx_, done, total, text.c_str());
}

// True when the host's table (its struct_size) reaches the entry at `offset`: an older host's
// table ends before the entries added after it.
static bool host_has(const ff_host_api* host, size_t offset) {
    return host->struct_size >= offset + sizeof(void*);
}

void Node::set_output_bits(const char* port, uint32_t bits) {
    if (host_has(host_, offsetof(ff_host_api, set_output_bits)) && host_->set_output_bits)
        host_->set_output_bits(ctx_, port, bits);
}

void Node::side_file(const char* param, const std::string& path) const {
    if (host_has(host_, offsetof(ff_host_api, side_file)) && host_->side_file)
        host_->side_file(ctx_, param, path.c_str());
}

std::optional<std::string> Node::state_dir() const {
    // An ABI 1.0 host's table ends before state_dir: reading past its struct_size is not allowed.
    constexpr size_t needed = offsetof(ff_host_api, state_dir) + sizeof(host_->state_dir);
    if (host_->struct_size < needed || !host_->state_dir) return std::nullopt;
    const char* dir = host_->state_dir(ctx_);
    if (!dir || !*dir) return std::nullopt;
    return std::string(dir);
}

} // namespace ff
