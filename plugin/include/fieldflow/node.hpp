// fieldflow plugin SDK for C++: declare a node in a few lines, on top of the C ABI in plugin.h.
//
//   FF_NODE(grayscale) = ff::op("Grayscale", "image")
//       .doc("Luma of an RGB image (0.299 R + 0.587 G + 0.114 B), kept as 3 equal channels.")
//       .input("image", ff::kImage, "image to convert")
//       .output("image", ff::kImage, "gray image")
//       .execute([](ff::Node& node) {
//           ff::ImageView in = node.image("image");
//           float* out = node.output_image("image", in.width, in.height, 3);
//           ...
//       });
//
// and, once per plugin, in one source file:
//
//   FF_PLUGIN("core", "1.0.0")
//
// Everything thrown inside execute/validate is caught here and reported through the host, so no
// exception ever crosses the ABI.
#pragma once

#include <fieldflow/plugin.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ff {

inline constexpr const char* kImage = FF_TYPE_IMAGE;
inline constexpr const char* kModel = FF_TYPE_MODEL;
inline constexpr const char* kJson = FF_TYPE_JSON;
inline constexpr const char* kAny = FF_TYPE_ANY;

// An op failed: the message says what is wrong, in the user's terms.
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A param's value is unacceptable; the host points at the param in the graph file.
struct ParamError : Error {
    ParamError(std::string param_name, const std::string& message)
        : Error(message), param(std::move(param_name)) {}
    std::string param;
};

// Thrown by Node::throw_if_cancelled(); turned into FF_CANCELLED.
struct Cancelled : std::exception {
    const char* what() const noexcept override { return "cancelled"; }
};

struct ImageView {
    uint32_t width = 0;
    uint32_t height = 0;
    uint32_t channels = 0;
    const float* pixels = nullptr;
    uint32_t bits = 0; // bits per sample of the source file: 8, 16, 32 (float); 0 unknown (ABI 1.2)
    size_t pixel_count() const { return size_t(width) * height; }
    size_t value_count() const { return pixel_count() * channels; }
};

// What an op's execute (and validate) function sees: typed access to its inputs, params and
// outputs, and the host's services. Getters throw ff::Error on a misuse (wrong name or kind).
class Node {
public:
    Node(const ff_host_api* host, ff_context* ctx) : host_(host), ctx_(ctx) {}

    // Inputs
    ImageView image(const char* port) const;
    std::optional<ImageView> optional_image(const char* port) const;
    std::span<const std::byte> blob(const char* port) const;
    std::optional<std::span<const std::byte>> optional_blob(const char* port) const;
    std::string text(const char* port) const { return as_text(blob(port)); }

    // Params
    int64_t integer(const char* name) const;
    double number(const char* name) const;
    bool flag(const char* name) const;
    std::string string(const char* name) const; // STRING and ENUM
    std::vector<int64_t> integers(const char* name) const;
    std::vector<std::string> strings(const char* name) const;

    // Outputs
    float* output_image(const char* port, uint32_t width, uint32_t height, uint32_t channels = 3);
    std::span<std::byte> output_blob(const char* port, size_t size);
    void output_text(const char* port, std::string_view text);
    // The source precision output image `port` stands for (plugin.h, set_output_bits); without
    // it the host gives an output image the largest bits of the node's image inputs.
    void set_output_bits(const char* port, uint32_t bits);

    // Services
    void log(std::string_view message, ff_log_level level = FF_LOG_INFO) const;
    void warn(std::string_view message) const { log(message, FF_LOG_WARNING); }
    void progress(uint64_t done, uint64_t total, std::string_view detail = {}) const;
    bool cancelled() const { return host_->cancelled(ctx_) != 0; }
    void throw_if_cancelled() const {
        if (cancelled()) throw Cancelled();
    }
    std::string device() const { return host_->device(ctx_); }
    std::string name() const { return host_->node_name(ctx_); }
    // A folder private to this node's work (op, params, inputs) that outlives an interrupted run,
    // for checkpoints (plugin.h, state_dir). nullopt when the run has no disk cache, in validate,
    // and on a host older than ABI 1.1. The host removes it after the node succeeds.
    std::optional<std::string> state_dir() const;
    // Reports a complete side file written under the FF_PARAM_SIDE_OUTPUT param `param`
    // (plugin.h, side_file), so a cached run writes it too. Nothing on a host older than ABI 1.2.
    void side_file(const char* param, const std::string& path) const;

    const ff_host_api* host() const { return host_; }
    ff_context* context() const { return ctx_; }

private:
    static std::string as_text(std::span<const std::byte> bytes) {
        return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
    }
    const ff_host_api* host_;
    ff_context* ctx_;
};

using ExecuteFn = std::function<void(Node&)>;
using ValidateFn = std::function<void(Node&)>;
using PrepareFn = std::function<void(Node&)>;
using ReleaseFn = std::function<void(Node&)>;

// Builder for one op. Owns the strings and arrays the C declaration points into; it lives in
// static storage (see FF_NODE), so those pointers stay valid for the plugin's lifetime.
class OpBuilder {
public:
    OpBuilder(std::string name, std::string category);
    OpBuilder(OpBuilder&&) = default;

    OpBuilder& doc(std::string text);
    OpBuilder& flags(uint32_t op_flags);
    OpBuilder& version(uint32_t v);

    OpBuilder& input(std::string name, std::string type, std::string doc);
    OpBuilder& optional_input(std::string name, std::string type, std::string doc);
    // Optional inputs of one type for an op that takes a varying number of them in order (image1,
    // image2, ...), documented "first <noun>", "second <noun>", ...
    OpBuilder& optional_inputs(std::span<const char* const> names, const std::string& type,
                               const std::string& noun);
    OpBuilder& output(std::string name, std::string type, std::string doc);

    // Params. `def` is the default as YAML text; omit it (std::nullopt) to make the param required.
    OpBuilder& param_int(std::string name, std::optional<int64_t> def, int64_t min, int64_t max,
                         std::string doc);
    OpBuilder& param_float(std::string name, std::optional<double> def, double min, double max,
                           std::string doc);
    OpBuilder& param_bool(std::string name, bool def, std::string doc);
    OpBuilder& param_string(std::string name, std::optional<std::string> def, std::string doc);
    OpBuilder& param_enum(std::string name, std::string def, std::string choices, std::string doc);
    OpBuilder& param_int_list(std::string name, std::optional<std::string> def, int64_t min,
                              int64_t max, std::string doc);
    OpBuilder& param_string_list(std::string name, std::optional<std::string> def, std::string doc);

    // ff_param_flags (FF_PARAM_NOT_IN_KEY, FF_PARAM_SIDE_OUTPUT) of the param declared last.
    OpBuilder& param_flags(uint32_t flags);
    // When the param declared last has an effect ("model=siren", "model=grid, encoding=hash"; see
    // ff_param_decl.applies_when): conditions on enum or bool params declared before it.
    OpBuilder& applies_when(std::string condition);

    OpBuilder& validate(ValidateFn fn);
    // Setup started before the node's inputs exist (ff_prepare_fn, ABI 1.4): params readable,
    // no inputs or outputs; it may run before, during or after execute, so it only warms a
    // thread-safe cache that execute uses anyway. Exceptions are swallowed: execute meets the
    // same problem and reports it.
    OpBuilder& prepare(PrepareFn fn);
    // prepare's pair (ff_release_fn, ABI 1.4): called once for each node whose prepare ran, after
    // the node settled, to let go of what prepare took for it. Exceptions are swallowed.
    OpBuilder& release(ReleaseFn fn);
    OpBuilder& execute(ExecuteFn fn);

    // The C declaration; valid while this builder lives.
    const ff_op_decl* decl();

private:
    struct Strings; // stable storage for every string the decl points to
    OpBuilder& add_param(std::string name, ff_param_kind kind, std::optional<std::string> def,
                         double min, double max, std::string choices, std::string doc);
    static ff_status call_execute(const ff_host_api* host, ff_context* ctx, void* user);
    std::string files_of(const Node& node) const; // for a message of the image library's
    static ff_status call_validate(const ff_host_api* host, ff_context* ctx, void* user);
    static ff_status call_prepare(const ff_host_api* host, ff_context* ctx, void* user);
    static void call_release(const ff_host_api* host, ff_context* ctx, void* user);

    std::unique_ptr<std::deque<std::string>> strings_;
    std::vector<ff_port_decl> inputs_;
    std::vector<ff_port_decl> outputs_;
    std::vector<ff_param_decl> params_;
    ff_op_decl decl_{};
    ExecuteFn execute_;
    ValidateFn validate_;
    PrepareFn prepare_;
    ReleaseFn release_;
};

inline OpBuilder op(std::string name, std::string category) {
    return OpBuilder(std::move(name), std::move(category));
}

// The ops this plugin registered through FF_NODE, in registration order.
class Registry {
public:
    static Registry& instance();
    OpBuilder& add(OpBuilder builder);
    const ff_plugin_info* info(const char* plugin_name, const char* plugin_version);

private:
    std::deque<OpBuilder> ops_;
    std::vector<const ff_op_decl*> decls_;
    ff_plugin_info info_{};
};

// Registers a builder's op when a plugin library loads (see FF_NODE).
struct Registration {
    Registration(OpBuilder& builder) { Registry::instance().add(std::move(builder)); }
    Registration(OpBuilder&& builder) { Registry::instance().add(std::move(builder)); }
};

} // namespace ff

#define FF_CONCAT_INNER(a, b) a##b
#define FF_CONCAT(a, b) FF_CONCAT_INNER(a, b)

// Declares and registers one op: `FF_NODE(id) = ff::op("Name", "category")...;`
#define FF_NODE(id) [[maybe_unused]] static const ::ff::Registration FF_CONCAT(ff_node_, id)

// Exports the plugin entry point. Exactly once per plugin library.
#define FF_PLUGIN(plugin_name, plugin_version)                                          \
    extern "C" FF_EXPORT const ff_plugin_info* fieldflow_plugin(void) {                 \
        return ::ff::Registry::instance().info(plugin_name, plugin_version);            \
    }
