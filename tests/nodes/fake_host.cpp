#include "fake_host.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace ff::test {

Image image_from_mat(const cv::Mat& rgb) {
    if (rgb.depth() != CV_32F) throw std::invalid_argument("image_from_mat needs a float Mat");
    cv::Mat contiguous = rgb.isContinuous() ? rgb : rgb.clone();
    Image image{uint32_t(rgb.cols), uint32_t(rgb.rows), uint32_t(rgb.channels()), {}};
    const float* data = contiguous.ptr<float>();
    image.pixels.assign(data, data + contiguous.total() * size_t(contiguous.channels()));
    return image;
}

cv::Mat mat_from_image(const Image& image) {
    cv::Mat wrapped(int(image.height), int(image.width), CV_32FC(int(image.channels)),
                    const_cast<float*>(image.pixels.data()));
    return wrapped.clone();
}

// ---- Plugin ---------------------------------------------------------------------------------

Plugin::Plugin(const std::string& path) {
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
    auto entry = reinterpret_cast<ff_plugin_entry_fn>(::dlsym(handle_, FF_PLUGIN_ENTRY_NAME));
    if (!entry) throw std::runtime_error("no entry point in " + path);
    info_ = entry();
}

Plugin::~Plugin() {
    if (handle_) ::dlclose(handle_);
}

const ff_op_decl& Plugin::op(const std::string& name) const {
    for (uint32_t i = 0; i < info_->op_count; ++i)
        if (name == info_->ops[i]->name) return *info_->ops[i];
    throw std::runtime_error("plugin has no op " + name);
}

const Plugin& core_plugin() {
    static Plugin plugin(FF_CORE_PLUGIN_PATH);
    return plugin;
}

// ---- Param defaults, parsed as the host would from the decl's YAML text ----------------------

namespace {

std::string trim(std::string s) {
    auto not_space = [](unsigned char c) { return !std::isspace(c); };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        s = s.substr(1, s.size() - 2);
    return s;
}

std::vector<std::string> list_items(const std::string& text) {
    std::string body = trim(text);
    std::vector<std::string> items;
    if (body.empty() || body.front() != '[') {
        items.push_back(body);
        return items;
    }
    body = body.substr(1, body.size() - 2);
    std::stringstream stream(body);
    std::string item;
    while (std::getline(stream, item, ','))
        if (!trim(item).empty()) items.push_back(trim(item));
    return items;
}

ParamValue parse_default(const ff_param_decl& decl) {
    const std::string text = decl.default_value;
    switch (decl.kind) {
    case FF_PARAM_INT: return int64_t(std::stoll(text));
    case FF_PARAM_FLOAT: return std::stod(text);
    case FF_PARAM_BOOL: return trim(text) == "true";
    case FF_PARAM_STRING:
    case FF_PARAM_ENUM: return trim(text);
    case FF_PARAM_INT_LIST: {
        std::vector<int64_t> values;
        for (const auto& item : list_items(text)) values.push_back(std::stoll(item));
        return values;
    }
    case FF_PARAM_STRING_LIST: return list_items(text);
    }
    throw std::invalid_argument("unknown param kind");
}

const ff_param_decl* find_param(const ff_op_decl& op, const std::string& name) {
    for (uint32_t i = 0; i < op.param_count; ++i)
        if (name == op.params[i].name) return &op.params[i];
    return nullptr;
}

bool choice_allowed(const ff_param_decl& decl, const std::string& value) {
    std::stringstream stream(decl.choices ? decl.choices : "");
    std::string choice;
    while (std::getline(stream, choice, '|'))
        if (choice == value) return true;
    return false;
}

} // namespace

FakeRun::FakeRun(const ff_op_decl& op) : op_(op) {
    for (uint32_t i = 0; i < op.param_count; ++i)
        if (op.params[i].default_value) params_[op.params[i].name] = parse_default(op.params[i]);
}

FakeRun& FakeRun::input(const std::string& port, Image image) {
    images_[port] = std::move(image);
    return *this;
}

FakeRun& FakeRun::input_blob(const std::string& port, std::string bytes) {
    blobs_[port] = std::move(bytes);
    return *this;
}

FakeRun& FakeRun::param(const std::string& name, ParamValue value) {
    const ff_param_decl* decl = find_param(op_, name);
    if (!decl) throw std::invalid_argument(std::string(op_.name) + " has no param " + name);
    // Check what the host's graph validation checks, so a test never feeds an op a value the
    // host would have refused.
    if (decl->kind == FF_PARAM_FLOAT && std::holds_alternative<int64_t>(value))
        value = double(std::get<int64_t>(value));
    const bool ranged = decl->min <= decl->max;
    auto out_of_range = [&](double v) { return ranged && (v < decl->min || v > decl->max); };
    bool ok = false;
    switch (decl->kind) {
    case FF_PARAM_INT:
        ok = std::holds_alternative<int64_t>(value) && !out_of_range(double(std::get<int64_t>(value)));
        break;
    case FF_PARAM_FLOAT:
        ok = std::holds_alternative<double>(value) && !out_of_range(std::get<double>(value));
        break;
    case FF_PARAM_BOOL: ok = std::holds_alternative<bool>(value); break;
    case FF_PARAM_STRING: ok = std::holds_alternative<std::string>(value); break;
    case FF_PARAM_ENUM:
        ok = std::holds_alternative<std::string>(value) && choice_allowed(*decl, std::get<std::string>(value));
        break;
    case FF_PARAM_INT_LIST: ok = std::holds_alternative<std::vector<int64_t>>(value); break;
    case FF_PARAM_STRING_LIST: ok = std::holds_alternative<std::vector<std::string>>(value); break;
    }
    if (!ok) throw std::invalid_argument("value of param " + name + " would be refused by the host");
    params_[name] = std::move(value);
    return *this;
}

FakeRun& FakeRun::cancel(bool on) {
    cancelled_ = on;
    return *this;
}

// ---- The host API ---------------------------------------------------------------------------

struct HostCallbacks {
    static FakeRun& run(ff_context* ctx) { return *reinterpret_cast<FakeRun*>(ctx); }

    template <class T>
    static const T* param(ff_context* ctx, const char* name) {
        auto& params = run(ctx).params_;
        auto it = params.find(name ? name : "");
        if (it == params.end()) return nullptr;
        return std::get_if<T>(&it->second);
    }

    static int32_t input_image(ff_context* ctx, const char* port, ff_image* out) {
        auto& images = run(ctx).images_;
        auto it = images.find(port ? port : "");
        if (it == images.end()) return 0;
        const Image& image = it->second;
        out->width = image.width;
        out->height = image.height;
        out->channels = image.channels;
        out->pixels = image.pixels.data();
        if (out->struct_size >= offsetof(ff_image, bits) + sizeof(out->bits)) out->bits = image.bits;
        return 1;
    }
    static const void* input_blob(ff_context* ctx, const char* port, size_t* size) {
        auto& blobs = run(ctx).blobs_;
        auto it = blobs.find(port ? port : "");
        if (it == blobs.end()) return nullptr;
        *size = it->second.size();
        return it->second.data();
    }
    static int32_t param_int(ff_context* ctx, const char* name, int64_t* out) {
        const auto* v = param<int64_t>(ctx, name);
        if (v) *out = *v;
        return v ? 1 : 0;
    }
    static int32_t param_float(ff_context* ctx, const char* name, double* out) {
        const auto* v = param<double>(ctx, name);
        if (v) *out = *v;
        return v ? 1 : 0;
    }
    static int32_t param_bool(ff_context* ctx, const char* name, int32_t* out) {
        const auto* v = param<bool>(ctx, name);
        if (v) *out = *v ? 1 : 0;
        return v ? 1 : 0;
    }
    static int32_t param_string(ff_context* ctx, const char* name, const char** out) {
        const auto* v = param<std::string>(ctx, name);
        if (v) *out = v->c_str();
        return v ? 1 : 0;
    }
    static int64_t param_int_list(ff_context* ctx, const char* name, int64_t* out, size_t capacity) {
        const auto* v = param<std::vector<int64_t>>(ctx, name);
        if (!v) return -1;
        for (size_t i = 0; i < std::min(capacity, v->size()); ++i) out[i] = (*v)[i];
        return int64_t(v->size());
    }
    static int64_t param_string_list(ff_context* ctx, const char* name, const char** out,
                                     size_t capacity) {
        const auto* v = param<std::vector<std::string>>(ctx, name);
        if (!v) return -1;
        for (size_t i = 0; i < std::min(capacity, v->size()); ++i) out[i] = (*v)[i].c_str();
        return int64_t(v->size());
    }
    static const ff_port_decl* output_port(FakeRun& r, const char* port) {
        for (uint32_t i = 0; i < r.op_.output_count; ++i)
            if (port && std::strcmp(port, r.op_.outputs[i].name) == 0) return &r.op_.outputs[i];
        return nullptr;
    }
    static float* output_image(ff_context* ctx, const char* port, uint32_t w, uint32_t h, uint32_t c) {
        FakeRun& r = run(ctx);
        const ff_port_decl* decl = output_port(r, port);
        if (!decl || std::strcmp(decl->type, FF_TYPE_IMAGE) != 0 || r.outputs_.count(port)) return nullptr;
        FakeRun::Output& out = r.outputs_[port];
        out.is_image = true;
        out.image = Image{w, h, c, std::vector<float>(size_t(w) * h * c, -12345.0f)};
        return out.image.pixels.data();
    }
    static void set_output_bits(ff_context* ctx, const char* port, uint32_t bits) {
        auto it = run(ctx).outputs_.find(port ? port : "");
        if (it != run(ctx).outputs_.end()) it->second.image.bits = bits;
    }
    static void* output_blob(ff_context* ctx, const char* port, size_t size) {
        FakeRun& r = run(ctx);
        const ff_port_decl* decl = output_port(r, port);
        if (!decl || std::strcmp(decl->type, FF_TYPE_IMAGE) == 0 || r.outputs_.count(port)) return nullptr;
        FakeRun::Output& out = r.outputs_[port];
        out.blob.assign(size, '\0');
        return out.blob.data();
    }
    static void set_error(ff_context* ctx, const char* message) {
        run(ctx).error_ = message ? message : "";
        run(ctx).error_param_.clear();
    }
    static void set_error_param(ff_context* ctx, const char* param, const char* message) {
        run(ctx).error_ = message ? message : "";
        run(ctx).error_param_ = param ? param : "";
    }
    static void log(ff_context* ctx, ff_log_level, const char* message) {
        run(ctx).logs_.emplace_back(message ? message : "");
    }
    static void progress(ff_context* ctx, uint64_t done, uint64_t total, const char* detail) {
        FakeRun& r = run(ctx);
        ++r.progress_calls_;
        r.progress_details_.emplace_back(detail ? detail : "");
        if (r.hook_ && r.hook_(done, total, r.progress_details_.back())) r.cancelled_ = true;
    }
    static int32_t cancelled(ff_context* ctx) { return run(ctx).cancelled_ ? 1 : 0; }
    static const char* device(ff_context*) { return "cpu"; }
    static const char* node_name(ff_context*) { return "test_node"; }

    static const ff_host_api& api() {
        static const ff_host_api table = [] {
            ff_host_api t{};
            t.struct_size = sizeof(ff_host_api);
            t.abi_major = FF_ABI_MAJOR;
            t.abi_minor = FF_ABI_MINOR;
            t.input_image = input_image;
            t.input_blob = input_blob;
            t.param_int = param_int;
            t.param_float = param_float;
            t.param_bool = param_bool;
            t.param_string = param_string;
            t.param_int_list = param_int_list;
            t.param_string_list = param_string_list;
            t.output_image = output_image;
            t.output_blob = output_blob;
            t.set_error = set_error;
            t.set_error_param = set_error_param;
            t.log = log;
            t.progress = progress;
            t.cancelled = cancelled;
            t.device = device;
            t.node_name = node_name;
            t.set_output_bits = set_output_bits;
            return t;
        }();
        return table;
    }
};

ff_status FakeRun::execute() {
    outputs_.clear();
    error_.clear();
    error_param_.clear();
    ff_status status = op_.execute(&HostCallbacks::api(), reinterpret_cast<ff_context*>(this), op_.user);
    if (status == FF_OK) {
        for (uint32_t i = 0; i < op_.output_count; ++i)
            if (!outputs_.count(op_.outputs[i].name)) {
                error_ = std::string("op returned OK without writing output '") + op_.outputs[i].name + "'";
                return FF_ERROR;
            }
    }
    return status;
}

ff_status FakeRun::validate() {
    error_.clear();
    error_param_.clear();
    if (!op_.validate) return FF_OK;
    return op_.validate(&HostCallbacks::api(), reinterpret_cast<ff_context*>(this), op_.user);
}

bool FakeRun::has_output(const std::string& port) const { return outputs_.count(port) != 0; }

const Image& FakeRun::output_image(const std::string& port) const {
    auto it = outputs_.find(port);
    if (it == outputs_.end() || !it->second.is_image) throw std::runtime_error("no image output " + port);
    return it->second.image;
}

std::string FakeRun::output_text(const std::string& port) const {
    auto it = outputs_.find(port);
    if (it == outputs_.end() || it->second.is_image) throw std::runtime_error("no blob output " + port);
    return it->second.blob;
}

} // namespace ff::test
