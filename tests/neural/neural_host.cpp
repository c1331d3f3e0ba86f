#include "neural_host.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace ff::test {

HostImage image_from_rgb(const cv::Mat& rgb) {
    if (rgb.type() != CV_32FC3) throw std::runtime_error("image_from_rgb: expected CV_32FC3");
    cv::Mat dense = rgb.isContinuous() ? rgb : rgb.clone();
    HostImage out{uint32_t(rgb.cols), uint32_t(rgb.rows), 3, {}};
    out.pixels.assign(dense.ptr<float>(), dense.ptr<float>() + dense.total() * 3);
    return out;
}

cv::Mat rgb_from_image(const HostImage& image) {
    if (image.channels != 3) throw std::runtime_error("rgb_from_image: expected 3 channels");
    cv::Mat out(int(image.height), int(image.width), CV_32FC3);
    std::memcpy(out.ptr<float>(), image.pixels.data(), image.pixels.size() * sizeof(float));
    return out;
}

NeuralPlugin::NeuralPlugin(const std::string& path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto entry = reinterpret_cast<ff_plugin_entry_fn>(dlsym(handle_, FF_PLUGIN_ENTRY_NAME));
    if (!entry) throw std::runtime_error("plugin has no entry point");
    info_ = entry();
}

const NeuralPlugin& NeuralPlugin::instance() {
    static NeuralPlugin plugin(FF_NEURAL_PLUGIN);
    return plugin;
}

const ff_op_decl& NeuralPlugin::op(const std::string& name) const {
    for (uint32_t i = 0; i < info_->op_count; ++i)
        if (name == info_->ops[i]->name) return *info_->ops[i];
    throw std::runtime_error("the neural plugin has no op " + name);
}

namespace {

// The few forms of YAML the neural ops use as defaults: numbers, booleans, plain strings and
// flow sequences of integers.
Param parse_default(const ff_param_decl& decl) {
    const std::string text = decl.default_value;
    switch (decl.kind) {
    case FF_PARAM_INT: return Param(int64_t(std::stoll(text)));
    case FF_PARAM_FLOAT: return Param(std::stod(text));
    case FF_PARAM_BOOL: return Param(text == "true");
    case FF_PARAM_INT_LIST: {
        std::vector<int64_t> values;
        std::string inner = text.substr(text.find('[') + 1);
        inner = inner.substr(0, inner.find(']'));
        std::stringstream in(inner);
        std::string item;
        while (std::getline(in, item, ','))
            if (item.find_first_not_of(" ") != std::string::npos) values.push_back(std::stoll(item));
        return Param(values);
    }
    default: return Param(text);
    }
}

OpRun* run_of(ff_context* ctx) { return reinterpret_cast<OpRun*>(ctx); }

} // namespace

struct Callbacks {
    static int32_t input_image(ff_context* ctx, const char* port, ff_image* out) {
        auto& in = run_of(ctx)->images_in_;
        auto it = in.find(port);
        if (it == in.end()) return 0;
        out->width = it->second.width;
        out->height = it->second.height;
        out->channels = it->second.channels;
        out->pixels = it->second.pixels.data();
        return 1;
    }
    static const void* input_blob(ff_context* ctx, const char* port, size_t* size) {
        auto& in = run_of(ctx)->blobs_in_;
        auto it = in.find(port);
        if (it == in.end()) return nullptr;
        *size = it->second.size();
        static const std::byte empty{};
        return it->second.empty() ? &empty : it->second.data();
    }
    template <class T>
    static bool get(ff_context* ctx, const char* name, ff_param_kind kind, T& out) {
        OpRun* run = run_of(ctx);
        const ff_param_decl* decl = run->param_decl(name);
        if (!decl || decl->kind != kind) return false;
        Param value;
        if (!run->resolve(name, value)) return false;
        if (const T* v = std::get_if<T>(&value)) {
            out = *v;
            return true;
        }
        if constexpr (std::is_same_v<T, double>) { // an int given for a float param
            if (const int64_t* i = std::get_if<int64_t>(&value)) {
                out = double(*i);
                return true;
            }
        }
        return false;
    }
    static int32_t param_int(ff_context* ctx, const char* name, int64_t* out) {
        return get(ctx, name, FF_PARAM_INT, *out);
    }
    static int32_t param_float(ff_context* ctx, const char* name, double* out) {
        return get(ctx, name, FF_PARAM_FLOAT, *out);
    }
    static int32_t param_bool(ff_context* ctx, const char* name, int32_t* out) {
        bool b = false;
        if (!get(ctx, name, FF_PARAM_BOOL, b)) return 0;
        *out = b;
        return 1;
    }
    static int32_t param_string(ff_context* ctx, const char* name, const char** out) {
        OpRun* run = run_of(ctx);
        const ff_param_decl* decl = run->param_decl(name);
        if (!decl) return 0;
        std::string value;
        if (!get(ctx, name, decl->kind == FF_PARAM_ENUM ? FF_PARAM_ENUM : FF_PARAM_STRING, value))
            return 0;
        *out = run->strings_.emplace_back(std::move(value)).c_str();
        return 1;
    }
    static int64_t param_int_list(ff_context* ctx, const char* name, int64_t* out, size_t capacity) {
        std::vector<int64_t> values;
        if (!get(ctx, name, FF_PARAM_INT_LIST, values)) return -1;
        for (size_t i = 0; i < values.size() && i < capacity; ++i) out[i] = values[i];
        return int64_t(values.size());
    }
    static int64_t param_string_list(ff_context*, const char*, const char**, size_t) { return -1; }
    static float* output_image(ff_context* ctx, const char* port, uint32_t w, uint32_t h, uint32_t c) {
        OpRun* run = run_of(ctx);
        if (run->images_out_.count(port) || run->blobs_out_.count(port)) return nullptr;
        HostImage& image = run->images_out_[port];
        image = {w, h, c, std::vector<float>(size_t(w) * h * c)};
        return image.pixels.data();
    }
    static void* output_blob(ff_context* ctx, const char* port, size_t size) {
        OpRun* run = run_of(ctx);
        if (run->images_out_.count(port) || run->blobs_out_.count(port)) return nullptr;
        std::vector<std::byte>& blob = run->blobs_out_[port];
        blob.resize(size);
        static std::byte empty{};
        return size ? blob.data() : &empty;
    }
    static void set_error(ff_context* ctx, const char* message) { run_of(ctx)->error_ = message; }
    static void set_error_param(ff_context* ctx, const char* param, const char* message) {
        run_of(ctx)->error_ = message;
        run_of(ctx)->error_param_ = param;
    }
    static void log(ff_context* ctx, ff_log_level, const char* message) {
        run_of(ctx)->logs_.push_back(message);
    }
    static void progress(ff_context* ctx, uint64_t done, uint64_t total, const char* detail) {
        OpRun* run = run_of(ctx);
        run->progress_.push_back({done, total, detail ? detail : ""});
        if (run->hook_ && run->hook_(run->progress_.back())) run->cancelled_ = true;
    }
    static int32_t cancelled(ff_context* ctx) { return run_of(ctx)->cancelled_ ? 1 : 0; }
    static const char* device(ff_context* ctx) { return run_of(ctx)->device_.c_str(); }
    static const char* node_name(ff_context*) { return "test"; }
    static const char* state_dir(ff_context* ctx) {
        OpRun* run = run_of(ctx);
        if (run->state_dir_.empty()) return nullptr;
        std::filesystem::create_directories(run->state_dir_);
        return run->state_dir_.c_str();
    }
};

namespace {

const ff_host_api& host_api() {
    static const ff_host_api api = [] {
        ff_host_api a{};
        a.struct_size = sizeof(ff_host_api);
        a.abi_major = FF_ABI_MAJOR;
        a.abi_minor = FF_ABI_MINOR;
        a.input_image = Callbacks::input_image;
        a.input_blob = Callbacks::input_blob;
        a.param_int = Callbacks::param_int;
        a.param_float = Callbacks::param_float;
        a.param_bool = Callbacks::param_bool;
        a.param_string = Callbacks::param_string;
        a.param_int_list = Callbacks::param_int_list;
        a.param_string_list = Callbacks::param_string_list;
        a.output_image = Callbacks::output_image;
        a.output_blob = Callbacks::output_blob;
        a.set_error = Callbacks::set_error;
        a.set_error_param = Callbacks::set_error_param;
        a.log = Callbacks::log;
        a.progress = Callbacks::progress;
        a.cancelled = Callbacks::cancelled;
        a.device = Callbacks::device;
        a.node_name = Callbacks::node_name;
        a.state_dir = Callbacks::state_dir;
        return a;
    }();
    return api;
}

} // namespace

OpRun::OpRun(const std::string& op_name) : op_(NeuralPlugin::instance().op(op_name)) {}

OpRun& OpRun::image(const std::string& port, HostImage value) {
    images_in_[port] = std::move(value);
    return *this;
}
OpRun& OpRun::blob(const std::string& port, std::vector<std::byte> bytes) {
    blobs_in_[port] = std::move(bytes);
    return *this;
}
OpRun& OpRun::text(const std::string& port, const std::string& text) {
    std::vector<std::byte> bytes(text.size());
    std::memcpy(bytes.data(), text.data(), text.size());
    return blob(port, std::move(bytes));
}
OpRun& OpRun::param(const std::string& name, Param value) {
    if (!param_decl(name.c_str())) throw std::runtime_error("op has no param " + name);
    params_[name] = std::move(value);
    return *this;
}

const ff_param_decl* OpRun::param_decl(const char* name) const {
    for (uint32_t i = 0; i < op_.param_count; ++i)
        if (std::strcmp(op_.params[i].name, name) == 0) return &op_.params[i];
    return nullptr;
}

bool OpRun::resolve(const char* name, Param& out) const {
    if (auto it = params_.find(name); it != params_.end()) {
        out = it->second;
        return true;
    }
    const ff_param_decl* decl = param_decl(name);
    if (!decl || !decl->default_value) return false;
    out = parse_default(*decl);
    return true;
}

ff_status OpRun::execute() {
    error_.clear();
    ff_status status = op_.execute(&host_api(), reinterpret_cast<ff_context*>(this), op_.user);
    if (status == FF_OK)
        for (uint32_t i = 0; i < op_.output_count; ++i)
            if (!has_output(op_.outputs[i].name)) {
                error_ = std::string("output '") + op_.outputs[i].name + "' was not written";
                return FF_ERROR;
            }
    return status;
}

ff_status OpRun::validate() {
    error_.clear();
    if (!op_.validate) return FF_OK;
    return op_.validate(&host_api(), reinterpret_cast<ff_context*>(this), op_.user);
}

const HostImage& OpRun::output_image(const std::string& port) const {
    auto it = images_out_.find(port);
    if (it == images_out_.end()) throw std::runtime_error("no image output " + port);
    return it->second;
}

const std::vector<std::byte>& OpRun::output_blob(const std::string& port) const {
    auto it = blobs_out_.find(port);
    if (it == blobs_out_.end()) throw std::runtime_error("no blob output " + port);
    return it->second;
}

std::string OpRun::output_text(const std::string& port) const {
    const auto& bytes = output_blob(port);
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

} // namespace ff::test
