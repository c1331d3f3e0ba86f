#include <fieldflow/host/host_api.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <new>

namespace fieldflow::host {
namespace {

// Every entry point is noexcept in effect: nothing may unwind into plugin code.
#define FF_GUARD_BEGIN try {
#define FF_GUARD_END(ctx, fallback)                                                 \
    }                                                                               \
    catch (const std::exception& e) {                                               \
        note_misuse(ctx, std::string("host error: ") + e.what());                   \
        return fallback;                                                            \
    }                                                                               \
    catch (...) {                                                                   \
        note_misuse(ctx, "host error");                                             \
        return fallback;                                                            \
    }

void note_misuse(ff_context* ctx, std::string message) {
    if (ctx) {
        try {
            ctx->misuse.push_back(std::move(message));
        } catch (...) {
        }
    }
}

std::string port_name(const char* port) { return port ? port : "(null)"; }

const ResolvedParam* find_param(ff_context* ctx, const char* name, const char* getter) {
    if (!ctx || !name) return nullptr;
    const ResolvedParam* p = ctx->node->param(name);
    if (!p) note_misuse(ctx, std::string(getter) + ": op has no param '" + name + "'");
    return p;
}

template <typename T>
const T* param_as(ff_context* ctx, const char* name, const char* getter) {
    const ResolvedParam* p = find_param(ctx, name, getter);
    if (!p) return nullptr;
    const T* value = std::get_if<T>(&p->value);
    if (!value)
        note_misuse(ctx, std::string(getter) + ": param '" + name + "' is a " +
                             kind_name(p->info->kind));
    return value;
}

// The input value on `port`: nullptr for an unconnected optional input (no misuse), or after
// noting a misuse (no such port, or inputs read during validation).
const Value* input_value(ff_context* ctx, const char* port, const char* getter) {
    if (!ctx) return nullptr;
    const PortInfo* info = port ? ctx->node->op->find_input(port) : nullptr;
    if (!info) {
        note_misuse(ctx, std::string(getter) + ": op has no input '" + port_name(port) + "'");
        return nullptr;
    }
    if (ctx->validating) return nullptr; // inputs are not available to validate() or prepare()
    auto it = ctx->inputs.find(port);
    return it == ctx->inputs.end() ? nullptr : it->second.get();
}

int32_t api_input_image(ff_context* ctx, const char* port, ff_image* out) {
    FF_GUARD_BEGIN
    const Value* v = input_value(ctx, port, "input_image");
    if (!v || !out) return 0;
    if (!v->is_image) {
        note_misuse(ctx, "input_image: input '" + port_name(port) + "' holds a " + v->type +
                             ", not an image");
        return 0;
    }
    // The 1.0 fields exist in every plugin's ff_image; later fields would be checked against
    // out->struct_size before being written.
    if (out->struct_size == 0) out->struct_size = sizeof(ff_image);
    out->width = v->width;
    out->height = v->height;
    out->channels = v->channels;
    out->pixels = v->pixels.data();
    if (out->struct_size >= offsetof(ff_image, bits) + sizeof(out->bits)) out->bits = v->bits;
    return 1;
    FF_GUARD_END(ctx, 0)
}

const void* api_input_blob(ff_context* ctx, const char* port, size_t* size) {
    FF_GUARD_BEGIN
    if (size) *size = 0;
    const Value* v = input_value(ctx, port, "input_blob");
    if (!v) return nullptr;
    if (v->is_image) {
        note_misuse(ctx, "input_blob: input '" + port_name(port) + "' holds an image");
        return nullptr;
    }
    if (size) *size = v->bytes.size();
    // A connected empty blob must still read as connected: return a valid non-NULL pointer.
    static const std::byte empty{};
    return v->bytes.empty() ? &empty : v->bytes.data();
    FF_GUARD_END(ctx, nullptr)
}

int32_t api_param_int(ff_context* ctx, const char* name, int64_t* out) {
    FF_GUARD_BEGIN
    const auto* v = param_as<int64_t>(ctx, name, "param_int");
    if (!v || !out) return 0;
    *out = *v;
    return 1;
    FF_GUARD_END(ctx, 0)
}

int32_t api_param_float(ff_context* ctx, const char* name, double* out) {
    FF_GUARD_BEGIN
    const auto* v = param_as<double>(ctx, name, "param_float");
    if (!v || !out) return 0;
    *out = *v;
    return 1;
    FF_GUARD_END(ctx, 0)
}

int32_t api_param_bool(ff_context* ctx, const char* name, int32_t* out) {
    FF_GUARD_BEGIN
    const auto* v = param_as<bool>(ctx, name, "param_bool");
    if (!v || !out) return 0;
    *out = *v ? 1 : 0;
    return 1;
    FF_GUARD_END(ctx, 0)
}

int32_t api_param_string(ff_context* ctx, const char* name, const char** out) {
    FF_GUARD_BEGIN
    const auto* v = param_as<std::string>(ctx, name, "param_string");
    if (!v || !out) return 0;
    *out = v->c_str(); // lives in the planned graph, which outlives the execution
    return 1;
    FF_GUARD_END(ctx, 0)
}

int64_t api_param_int_list(ff_context* ctx, const char* name, int64_t* out, size_t capacity) {
    FF_GUARD_BEGIN
    const auto* v = param_as<std::vector<int64_t>>(ctx, name, "param_int_list");
    if (!v) return -1;
    if (out) std::copy_n(v->begin(), std::min(capacity, v->size()), out);
    return static_cast<int64_t>(v->size());
    FF_GUARD_END(ctx, -1)
}

int64_t api_param_string_list(ff_context* ctx, const char* name, const char** out,
                              size_t capacity) {
    FF_GUARD_BEGIN
    const auto* v = param_as<std::vector<std::string>>(ctx, name, "param_string_list");
    if (!v) return -1;
    if (out)
        for (size_t i = 0; i < std::min(capacity, v->size()); ++i) out[i] = (*v)[i].c_str();
    return static_cast<int64_t>(v->size());
    FF_GUARD_END(ctx, -1)
}

// Checks that `port` is an output not yet written and that its type suits the value kind.
const PortInfo* claim_output(ff_context* ctx, const char* port, bool image, const char* getter) {
    if (!ctx) return nullptr;
    if (ctx->validating) {
        note_misuse(ctx, std::string(getter) + ": outputs cannot be written in validate() or prepare()");
        return nullptr;
    }
    const PortInfo* info = port ? ctx->node->op->find_output(port) : nullptr;
    if (!info) {
        note_misuse(ctx, std::string(getter) + ": op has no output '" + port_name(port) + "'");
        return nullptr;
    }
    if (ctx->outputs.count(info->name)) {
        note_misuse(ctx, std::string(getter) + ": output '" + info->name + "' written twice");
        return nullptr;
    }
    const bool port_is_image = info->type == FF_TYPE_IMAGE;
    if (info->type != FF_TYPE_ANY && port_is_image != image) {
        note_misuse(ctx, std::string(getter) + ": output '" + info->name + "' is of type " +
                             info->type);
        return nullptr;
    }
    return info;
}

float* api_output_image(ff_context* ctx, const char* port, uint32_t width, uint32_t height,
                        uint32_t channels) {
    FF_GUARD_BEGIN
    const PortInfo* info = claim_output(ctx, port, true, "output_image");
    if (!info) return nullptr;
    if (width == 0 || height == 0 || channels == 0 || channels > 64) {
        note_misuse(ctx, "output_image: bad size " + std::to_string(width) + "x" +
                             std::to_string(height) + "x" + std::to_string(channels));
        return nullptr;
    }
    auto value = std::make_shared<Value>();
    value->type = FF_TYPE_IMAGE;
    value->is_image = true;
    value->width = width;
    value->height = height;
    value->channels = channels;
    // An op that transforms images keeps their source's precision unless it says otherwise.
    for (const auto& [name, input] : ctx->inputs)
        if (input && input->is_image) value->bits = std::max(value->bits, input->bits);
    value->pixels.assign(size_t(width) * height * channels, 0.0f);
    float* data = value->pixels.data();
    ctx->outputs.emplace(info->name, std::move(value));
    return data;
    FF_GUARD_END(ctx, nullptr)
}

void* api_output_blob(ff_context* ctx, const char* port, size_t size) {
    FF_GUARD_BEGIN
    const PortInfo* info = claim_output(ctx, port, false, "output_blob");
    if (!info) return nullptr;
    auto value = std::make_shared<Value>();
    value->type = info->type;
    value->bytes.assign(size, std::byte{0});
    // Even an empty blob gets a writable non-NULL pointer, so NULL always means an error.
    static std::byte empty_sink;
    void* data = size ? static_cast<void*>(value->bytes.data()) : &empty_sink;
    ctx->outputs.emplace(info->name, std::move(value));
    return data;
    FF_GUARD_END(ctx, nullptr)
}

void api_set_error(ff_context* ctx, const char* message) {
    if (!ctx) return;
    try {
        ctx->error = message ? message : "failed";
        ctx->error_param.clear();
    } catch (...) {
    }
}

void api_set_error_param(ff_context* ctx, const char* param, const char* message) {
    if (!ctx) return;
    try {
        ctx->error = message ? message : "invalid value";
        ctx->error_param = param ? param : "";
    } catch (...) {
    }
}

void api_log(ff_context* ctx, ff_log_level level, const char* message) {
    if (!ctx || !message) return;
    try {
        if (!ctx->services && ctx->validating) {
            ctx->validate_log.emplace_back(level, message);
            return;
        }
        if (!ctx->services || !ctx->services->log) return;
        ctx->services->log(ctx->node->name, level, message);
    } catch (...) {
    }
}

void api_progress(ff_context* ctx, uint64_t done, uint64_t total, const char* detail) {
    if (!ctx || !ctx->services || !ctx->services->progress) return;
    try {
        ctx->services->progress(ctx->node->name, done, total, detail ? detail : "");
    } catch (...) {
    }
}

int32_t api_cancelled(ff_context* ctx) {
    if (!ctx || !ctx->services || !ctx->services->cancel) return 0;
    return ctx->services->cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

const char* api_device(ff_context* ctx) {
    if (!ctx || !ctx->services) return "auto";
    return ctx->services->device.c_str();
}

const char* api_node_name(ff_context* ctx) {
    if (!ctx || !ctx->node) return "";
    return ctx->node->name.c_str();
}

const char* api_state_dir(ff_context* ctx) {
    if (!ctx || ctx->validating || !ctx->disk) return nullptr;
    FF_GUARD_BEGIN
    if (ctx->state_dir.empty()) {
        const std::string path = ctx->disk->state_path(ctx->key);
        std::error_code ec;
        std::filesystem::create_directories(path, ec);
        if (ec) {
            if (ctx->services && ctx->services->log)
                ctx->services->log(ctx->node->name, FF_LOG_WARNING,
                                   "cannot create the state folder " + path + ": " + ec.message() +
                                       " (the node runs without one)");
            return nullptr;
        }
        ctx->state_dir = path;
    }
    return ctx->state_dir.c_str();
    FF_GUARD_END(ctx, nullptr)
}

void api_set_output_bits(ff_context* ctx, const char* port, uint32_t bits) {
    if (!ctx) return;
    FF_GUARD_BEGIN
    auto it = ctx->outputs.find(port_name(port));
    if (it == ctx->outputs.end() || !it->second->is_image) {
        note_misuse(ctx, "set_output_bits: output '" + port_name(port) +
                             "' is not an image written so far");
        return;
    }
    if (bits != 0 && bits != 8 && bits != 16 && bits != 32) {
        note_misuse(ctx, "set_output_bits: " + std::to_string(bits) + " is not 0, 8, 16 or 32");
        return;
    }
    it->second->bits = bits;
    FF_GUARD_END(ctx, )
}

void api_side_file(ff_context* ctx, const char* param, const char* path) {
    if (!ctx || ctx->validating) return;
    FF_GUARD_BEGIN
    const ResolvedParam* p = find_param(ctx, param, "side_file");
    if (!p) return;
    if (!(p->info->flags & FF_PARAM_SIDE_OUTPUT)) {
        note_misuse(ctx, "side_file: param '" + p->info->name + "' is not declared a side output");
        return;
    }
    if (!path || !*path) {
        note_misuse(ctx, "side_file: no path");
        return;
    }
    ctx->side_files[p->info->name].insert(path);
    FF_GUARD_END(ctx, )
}

const ff_host_api kHostApi = {
    sizeof(ff_host_api), FF_ABI_MAJOR,       FF_ABI_MINOR,      api_input_image,
    api_input_blob,      api_param_int,      api_param_float,   api_param_bool,
    api_param_string,    api_param_int_list, api_param_string_list, api_output_image,
    api_output_blob,     api_set_error,      api_set_error_param, api_log,
    api_progress,        api_cancelled,      api_device,        api_node_name,
    api_state_dir,       api_set_output_bits, api_side_file,
};

} // namespace

const ff_host_api* host_api() { return &kHostApi; }

} // namespace fieldflow::host
