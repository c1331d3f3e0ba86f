// OpBuilder: owns every string and array an ff_op_decl points into, and adapts C++ execute /
// validate functions to the C ABI, catching every exception at the boundary.
#include <fieldflow/node.hpp>

#include <charconv>
#include <functional>
#include <stdexcept>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace ff {

namespace {

// YAML text for a number default: integers exactly, floats with enough digits to round-trip.
std::string yaml_number(double v) {
    // Shortest text that reads back as exactly `v` (0.03, not 0.029999999999999999).
    char buffer[64];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    std::string text(buffer, ec == std::errc() ? end : buffer);
    // Keep "1.0"-style text a float in YAML (the host reads "1" as an int for a float param too,
    // but an explicit decimal point documents the kind in `fieldflow nodes`).
    if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
    return text;
}

} // namespace

OpBuilder::OpBuilder(std::string name, std::string category)
    : strings_(std::make_unique<std::deque<std::string>>()) {
    // Only plain data here: `this` changes when the builder is moved into the Registry, so the
    // pointers back to this object (decl_.user) and into the vectors are set in decl().
    decl_.struct_size = sizeof(ff_op_decl);
    decl_.name = strings_->emplace_back(std::move(name)).c_str();
    decl_.category = strings_->emplace_back(std::move(category)).c_str();
    decl_.doc = "";
    decl_.flags = FF_OP_PURE;
    decl_.version = 1;
}

OpBuilder& OpBuilder::doc(std::string text) {
    decl_.doc = strings_->emplace_back(std::move(text)).c_str();
    return *this;
}

OpBuilder& OpBuilder::flags(uint32_t op_flags) {
    decl_.flags = op_flags;
    return *this;
}

OpBuilder& OpBuilder::version(uint32_t v) {
    decl_.version = v;
    return *this;
}

static ff_port_decl make_port(std::deque<std::string>& strings, std::string name, std::string type,
                              std::string doc, bool optional) {
    ff_port_decl port{};
    port.struct_size = sizeof(ff_port_decl);
    port.name = strings.emplace_back(std::move(name)).c_str();
    port.type = strings.emplace_back(std::move(type)).c_str();
    port.doc = strings.emplace_back(std::move(doc)).c_str();
    port.optional = optional ? 1 : 0;
    return port;
}

OpBuilder& OpBuilder::input(std::string name, std::string type, std::string doc) {
    inputs_.push_back(make_port(*strings_, std::move(name), std::move(type), std::move(doc), false));
    return *this;
}

OpBuilder& OpBuilder::optional_input(std::string name, std::string type, std::string doc) {
    inputs_.push_back(make_port(*strings_, std::move(name), std::move(type), std::move(doc), true));
    return *this;
}

OpBuilder& OpBuilder::optional_inputs(std::span<const char* const> names, const std::string& type,
                                      const std::string& noun) {
    static constexpr const char* kOrdinals[] = {"first", "second", "third", "fourth", "fifth",
                                                "sixth", "seventh", "eighth", "ninth", "tenth"};
    for (size_t i = 0; i < names.size(); ++i)
        optional_input(names[i], type,
                       i < std::size(kOrdinals) ? std::string(kOrdinals[i]) + " " + noun
                                                : noun + " " + std::to_string(i + 1));
    return *this;
}

OpBuilder& OpBuilder::output(std::string name, std::string type, std::string doc) {
    outputs_.push_back(make_port(*strings_, std::move(name), std::move(type), std::move(doc), false));
    return *this;
}

OpBuilder& OpBuilder::add_param(std::string name, ff_param_kind kind, std::optional<std::string> def,
                                double min, double max, std::string choices, std::string doc) {
    ff_param_decl param{};
    param.struct_size = sizeof(ff_param_decl);
    param.name = strings_->emplace_back(std::move(name)).c_str();
    param.kind = kind;
    param.default_value = def ? strings_->emplace_back(std::move(*def)).c_str() : nullptr;
    param.min = min;
    param.max = max;
    param.choices = choices.empty() ? nullptr : strings_->emplace_back(std::move(choices)).c_str();
    param.doc = strings_->emplace_back(std::move(doc)).c_str();
    params_.push_back(param);
    return *this;
}

OpBuilder& OpBuilder::param_flags(uint32_t flags) {
    if (params_.empty()) throw std::logic_error("param_flags() before any param");
    params_.back().flags = flags;
    return *this;
}

OpBuilder& OpBuilder::applies_when(std::string condition) {
    if (params_.empty()) throw std::logic_error("applies_when() before any param");
    params_.back().applies_when = strings_->emplace_back(std::move(condition)).c_str();
    return *this;
}

OpBuilder& OpBuilder::param_int(std::string name, std::optional<int64_t> def, int64_t min,
                                int64_t max, std::string doc) {
    std::optional<std::string> text;
    if (def) text = std::to_string(*def);
    return add_param(std::move(name), FF_PARAM_INT, std::move(text), double(min), double(max), {},
                     std::move(doc));
}

OpBuilder& OpBuilder::param_float(std::string name, std::optional<double> def, double min,
                                  double max, std::string doc) {
    std::optional<std::string> text;
    if (def) text = yaml_number(*def);
    return add_param(std::move(name), FF_PARAM_FLOAT, std::move(text), min, max, {},
                     std::move(doc));
}

OpBuilder& OpBuilder::param_bool(std::string name, bool def, std::string doc) {
    return add_param(std::move(name), FF_PARAM_BOOL, std::string(def ? "true" : "false"), 1.0, 0.0,
                     {}, std::move(doc));
}

OpBuilder& OpBuilder::param_string(std::string name, std::optional<std::string> def,
                                   std::string doc) {
    return add_param(std::move(name), FF_PARAM_STRING, std::move(def), 1.0, 0.0, {},
                     std::move(doc));
}

OpBuilder& OpBuilder::param_enum(std::string name, std::string def, std::string choices,
                                 std::string doc) {
    return add_param(std::move(name), FF_PARAM_ENUM, std::move(def), 1.0, 0.0, std::move(choices),
                     std::move(doc));
}

OpBuilder& OpBuilder::param_int_list(std::string name, std::optional<std::string> def, int64_t min,
                                     int64_t max, std::string doc) {
    return add_param(std::move(name), FF_PARAM_INT_LIST, std::move(def), double(min), double(max),
                     {}, std::move(doc));
}

OpBuilder& OpBuilder::param_string_list(std::string name, std::optional<std::string> def,
                                        std::string doc) {
    return add_param(std::move(name), FF_PARAM_STRING_LIST, std::move(def), 1.0, 0.0, {},
                     std::move(doc));
}

OpBuilder& OpBuilder::validate(ValidateFn fn) {
    validate_ = std::move(fn);
    return *this;
}

OpBuilder& OpBuilder::prepare(PrepareFn fn) {
    prepare_ = std::move(fn);
    return *this;
}

OpBuilder& OpBuilder::release(ReleaseFn fn) {
    release_ = std::move(fn);
    return *this;
}

OpBuilder& OpBuilder::execute(ExecuteFn fn) {
    execute_ = std::move(fn);
    return *this;
}

const ff_op_decl* OpBuilder::decl() {
    // Called once the builder sits at its final address (the Registry's deque), so the pointers
    // into this object and its vectors stay valid from here on.
    decl_.inputs = inputs_.empty() ? nullptr : inputs_.data();
    decl_.input_count = uint32_t(inputs_.size());
    decl_.outputs = outputs_.empty() ? nullptr : outputs_.data();
    decl_.output_count = uint32_t(outputs_.size());
    decl_.params = params_.empty() ? nullptr : params_.data();
    decl_.param_count = uint32_t(params_.size());
    decl_.execute = execute_ ? &OpBuilder::call_execute : nullptr;
    decl_.validate = validate_ ? &OpBuilder::call_validate : nullptr;
    decl_.user = this;
    decl_.prepare = prepare_ ? &OpBuilder::call_prepare : nullptr;
    decl_.release = release_ ? &OpBuilder::call_release : nullptr;
    return &decl_;
}

namespace {

// An exception OpenCV threw (cv::Exception, whose what() reads "OpenCV(4.6.0) /build/.../file.cpp:
// 123: error: (-215:Assertion failed) !image.empty() in function 'imencode'"): the library's
// words, its source path included, not the user's. The SDK links no OpenCV, so it goes by the text.
bool is_opencv_error(const std::string& what) { return what.rfind("OpenCV(", 0) == 0; }

// The same as a sentence: which call of the library failed and why, the node's files, and what
// to do (the host puts the node's name before it).
std::string opencv_error_text(const std::string& what, const std::string& files) {
    std::string kind, detail, function;
    if (const size_t open = what.find("error: ("); open != std::string::npos) {
        const size_t close = what.find(')', open);
        if (close != std::string::npos) {
            kind = what.substr(open + 8, close - open - 8);
            kind = kind.substr(kind.find(':') == std::string::npos ? 0 : kind.find(':') + 1);
            const size_t in = what.find(" in function '", close);
            detail = what.substr(close + 2, in == std::string::npos ? std::string::npos : in - close - 2);
            if (in != std::string::npos) function = what.substr(in + 14, what.find('\'', in + 14) - in - 14);
        }
    }
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    std::string text = "the image library (OpenCV) failed" + (function.empty() ? "" : " in " + function);
    if (!kind.empty() || !detail.empty())
        text += " (" + kind + (kind.empty() || detail.empty() ? "" : ": ") + detail + ")";
    if (!files.empty()) text += " on " + files;
    return text + "; the input is likely of a size, shape or type this node cannot handle: try another "
                  "(e.g. a larger or smaller image), and report this message if the input is ordinary";
}

// Runs `fn` and turns every exception into a status plus a message through the host;
// `files()` names the node's files for a message of the image library's.
template <class Fn>
ff_status guarded(const ff_host_api* host, ff_context* ctx, Fn&& fn,
                  const std::function<std::string()>& files = [] { return std::string(); }) {
    try {
        fn();
        return FF_OK;
    } catch (const ParamError& e) {
        host->set_error_param(ctx, e.param.c_str(), e.what());
    } catch (const Cancelled&) {
        return FF_CANCELLED;
    } catch (const std::bad_alloc&) {
        host->set_error(ctx, "out of memory");
    } catch (const std::exception& e) {
        host->set_error(ctx, is_opencv_error(e.what()) ? opencv_error_text(e.what(), files()).c_str() : e.what());
    } catch (...) {
        host->set_error(ctx, "unknown exception");
    }
    return FF_ERROR;
}

} // namespace

// The values of the params that name a file the node reads or writes: "'in.png' and 'out.png'".
std::string OpBuilder::files_of(const Node& node) const {
    std::string text;
    for (const ff_param_decl& p : params_) {
        if (!(p.flags & (FF_PARAM_READS_FILE | FF_PARAM_WRITES_FILE)) || p.kind != FF_PARAM_STRING) continue;
        try {
            const std::string value = node.string(p.name);
            if (!value.empty()) text += (text.empty() ? "'" : " and '") + value + "'";
        } catch (...) { // not set: nothing to name
        }
    }
    return text;
}

ff_status OpBuilder::call_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    auto* self = static_cast<OpBuilder*>(user);
    return guarded(
        host, ctx,
        [&] {
            Node node(host, ctx);
            self->execute_(node);
        },
        [&] { return self->files_of(Node(host, ctx)); });
}

ff_status OpBuilder::call_validate(const ff_host_api* host, ff_context* ctx, void* user) {
    auto* self = static_cast<OpBuilder*>(user);
    return guarded(host, ctx, [&] {
        Node node(host, ctx);
        self->validate_(node);
    });
}

ff_status OpBuilder::call_prepare(const ff_host_api* host, ff_context* ctx, void* user) {
    auto* self = static_cast<OpBuilder*>(user);
    try {
        Node node(host, ctx);
        self->prepare_(node);
        return FF_OK;
    } catch (...) {
        return FF_ERROR; // not the node's failure: execute meets the problem and reports it
    }
}

void OpBuilder::call_release(const ff_host_api* host, ff_context* ctx, void* user) {
    auto* self = static_cast<OpBuilder*>(user);
    try {
        Node node(host, ctx);
        self->release_(node);
    } catch (...) {
        // nothing to report: the node has settled, and its release has no one to tell
    }
}

} // namespace ff
