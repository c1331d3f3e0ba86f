#include <fieldflow/host/plugin_loader.hpp>
#include <fieldflow/host/regular_file.hpp>

#include <fieldflow/host/names.hpp>
#include <fieldflow/host/param_conditions.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

// Size of a struct as ABI 1.0 defined it: up to the end of its last 1.0 field. A plugin's struct
// may be larger (a newer minor version appended fields) but never smaller.
#define FF_V1_SIZE(type, last) (offsetof(type, last) + sizeof(((type*)nullptr)->last))
constexpr size_t kInfoV1 = FF_V1_SIZE(ff_plugin_info, op_count);
constexpr size_t kOpV1 = FF_V1_SIZE(ff_op_decl, user);
constexpr size_t kPortV1 = FF_V1_SIZE(ff_port_decl, optional);
constexpr size_t kParamV1 = FF_V1_SIZE(ff_param_decl, doc);
#undef FF_V1_SIZE

std::string str(const char* s) { return s ? std::string(s) : std::string(); }

// Arrays of declarations are laid out with the plugin's struct size, which may be larger than
// ours: step by the first element's struct_size.
template <typename T>
std::string read_array(const T* first, uint32_t count, size_t v1_size, const char* what,
                       std::vector<const T*>& out) {
    if (count == 0) return {};
    if (!first) return std::string(what) + ": count is " + std::to_string(count) + " but the array is NULL";
    const size_t stride = first->struct_size;
    if (stride < v1_size)
        return std::string(what) + ": struct_size " + std::to_string(stride) +
               " is smaller than ABI 1.0's " + std::to_string(v1_size);
    const auto* bytes = reinterpret_cast<const unsigned char*>(first);
    for (uint32_t i = 0; i < count; ++i) {
        const T* item = reinterpret_cast<const T*>(bytes + i * stride);
        if (item->struct_size != stride)
            return std::string(what) + " " + std::to_string(i) + ": struct_size " +
                   std::to_string(item->struct_size) + " differs from the first's " +
                   std::to_string(stride);
        out.push_back(item);
    }
    return {};
}

std::string read_ports(const ff_port_decl* decls, uint32_t count, const char* what,
                       std::vector<PortInfo>& out) {
    std::vector<const ff_port_decl*> items;
    if (std::string e = read_array(decls, count, kPortV1, what, items); !e.empty()) return e;
    std::set<std::string> seen;
    for (const ff_port_decl* d : items) {
        PortInfo port{str(d->name), str(d->type), str(d->doc), d->optional != 0};
        if (port.name.empty()) return std::string(what) + ": a port has no name";
        if (port.type.empty()) return std::string(what) + " '" + port.name + "' has no type";
        if (!seen.insert(port.name).second)
            return std::string(what) + " '" + port.name + "' is declared twice";
        out.push_back(std::move(port));
    }
    return {};
}

// ff_param_decl.flags (ABI 1.2) counts only where the plugin says 1.2 and its decls are that large;
// applies_when (ABI 1.3) likewise.
constexpr size_t kParamV2 = offsetof(ff_param_decl, flags) + sizeof(uint32_t);
constexpr size_t kParamV3 = offsetof(ff_param_decl, applies_when) + sizeof(const char*);
constexpr size_t kOpV4 = offsetof(ff_op_decl, release) + sizeof(ff_release_fn);
constexpr uint32_t kParamFlagsKnown =
    FF_PARAM_NOT_IN_KEY | FF_PARAM_SIDE_OUTPUT | FF_PARAM_READS_FILE | FF_PARAM_WRITES_FILE;

std::string read_params(const ff_param_decl* decls, uint32_t count, uint32_t abi_minor,
                        std::vector<ParamInfo>& out) {
    std::vector<const ff_param_decl*> items;
    if (std::string e = read_array(decls, count, kParamV1, "params", items); !e.empty()) return e;
    std::set<std::string> seen;
    for (const ff_param_decl* d : items) {
        ParamInfo p;
        p.name = str(d->name);
        if (p.name.empty()) return "a param has no name";
        if (!seen.insert(p.name).second) return "param '" + p.name + "' is declared twice";
        if (d->kind < FF_PARAM_INT || d->kind > FF_PARAM_STRING_LIST)
            return "param '" + p.name + "' has unknown kind " + std::to_string(int(d->kind));
        p.kind = d->kind;
        p.doc = str(d->doc);
        const bool ranged = p.kind == FF_PARAM_INT || p.kind == FF_PARAM_FLOAT ||
                            p.kind == FF_PARAM_INT_LIST;
        p.has_range = ranged && d->min <= d->max;
        p.min = d->min;
        p.max = d->max;
        if (abi_minor >= 2 && d->struct_size >= kParamV2) {
            if (d->flags & ~kParamFlagsKnown)
                return "param '" + p.name + "' has unknown flags " + std::to_string(d->flags);
            const uint32_t path_flags = FF_PARAM_SIDE_OUTPUT | FF_PARAM_READS_FILE | FF_PARAM_WRITES_FILE;
            if ((d->flags & path_flags) && p.kind != FF_PARAM_STRING)
                return "param '" + p.name + "' is flagged as a path but is not a string";
            p.flags = d->flags;
        }
        if (p.kind == FF_PARAM_ENUM) {
            for (const std::string& choice : split(str(d->choices), '|')) p.choices.push_back(choice);
            if (p.choices.empty()) return "enum param '" + p.name + "' has no choices";
        }
        if (abi_minor >= 3 && d->struct_size >= kParamV3)
            if (std::string e = parse_applies_when(p.name, str(d->applies_when), out, p.applies_when); !e.empty())
                return e;
        if (d->default_value) {
            p.default_text = d->default_value;
            ParamText text;
            if (!param_text_from_yaml(p.default_text, text))
                return "param '" + p.name + "': default '" + p.default_text + "' is not valid YAML";
            if (p.kind == FF_PARAM_STRING && !text.is_sequence) {
                text.is_null = false; // a string default is taken as written
                text.scalar = p.default_text;
            }
            ParamParse parsed = parse_param(p, text);
            if (!parsed.value)
                return "param '" + p.name + "': default '" + p.default_text + "' " + parsed.error;
            p.default_value = std::move(parsed.value);
        }
        out.push_back(std::move(p));
    }
    return {};
}

std::string read_op(const ff_op_decl* d, uint32_t abi_minor, OpInfo& op) {
    if (d->struct_size < kOpV1)
        return "an op's struct_size " + std::to_string(d->struct_size) +
               " is smaller than ABI 1.0's " + std::to_string(kOpV1);
    op.name = str(d->name);
    if (op.name.empty()) return "an op has no name";
    const std::string what = "op '" + op.name + "': ";
    op.category = d->category && *d->category ? d->category : "other";
    op.doc = str(d->doc);
    op.flags = d->flags;
    op.version = d->version;
    op.execute = d->execute;
    op.validate = d->validate;
    op.user = d->user;
    if (abi_minor >= 4 && d->struct_size >= kOpV4) {
        op.prepare = d->prepare;
        op.release = d->release;
    }
    if (!op.execute) return what + "no execute function";
    if (std::string e = read_ports(d->inputs, d->input_count, "input", op.inputs); !e.empty())
        return what + e;
    if (std::string e = read_ports(d->outputs, d->output_count, "output", op.outputs); !e.empty())
        return what + e;
    if (std::string e = read_params(d->params, d->param_count, abi_minor, op.params); !e.empty())
        return what + e;
    return {};
}

} // namespace

std::string read_plugin_info(const ff_plugin_info* info, const std::string& file,
                             std::vector<OpInfo>& ops) {
    if (!info) return "'" FF_PLUGIN_ENTRY_NAME "' returned no plugin description";
    const std::string host_abi = std::to_string(FF_ABI_MAJOR) + "." + std::to_string(FF_ABI_MINOR);
    // abi_major/abi_minor sit right after struct_size in every version: read them first, so a
    // plugin for another major version gets the version message, not a size complaint.
    const std::string plugin_abi = std::to_string(info->abi_major) + "." + std::to_string(info->abi_minor);
    if (info->abi_major != FF_ABI_MAJOR)
        return "plugin ABI " + plugin_abi + " is not supported: this fieldflow hosts ABI " +
               host_abi + " (rebuild the plugin against this fieldflow's plugin.h)";
    if (info->abi_minor > FF_ABI_MINOR)
        return "plugin needs ABI " + plugin_abi + ", newer than this fieldflow's " + host_abi +
               " (update fieldflow)";
    if (info->struct_size < kInfoV1)
        return "ff_plugin_info.struct_size " + std::to_string(info->struct_size) +
               " is smaller than ABI 1.0's " + std::to_string(kInfoV1);
    const std::string plugin_name = str(info->name);
    if (plugin_name.empty()) return "the plugin has no name";
    if (info->op_count > 0 && !info->ops) return "op_count is set but ops is NULL";
    for (uint32_t i = 0; i < info->op_count; ++i) {
        const ff_op_decl* decl = info->ops[i];
        if (!decl) return "op " + std::to_string(i) + " is NULL";
        OpInfo op;
        if (std::string e = read_op(decl, info->abi_minor, op); !e.empty()) return e;
        op.plugin_name = plugin_name;
        op.plugin_version = str(info->version);
        op.plugin_file = file;
        ops.push_back(std::move(op));
    }
    return {};
}

std::string load_plugin_file(const std::string& path, OpRegistry& registry) {
    const std::string prefix = "plugin " + path + ": ";
    // RTLD_LOCAL: each plugin's symbols stay its own, so two plugins may use the same names.
    // A name without a '/' would be searched in the library path, not the current folder.
    const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
    // dlopen() of a FIFO waits for a writer forever: only a regular file is opened.
    if (const std::string problem = regular_file_problem(file); !problem.empty())
        return prefix + (problem.rfind("is ", 0) == 0 && problem.ends_with(", not a file")
                             ? problem.substr(0, problem.size() - 4) + "plugin file"
                             : problem);
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        return prefix + "cannot load: " + (why ? why : "unknown dlopen error");
    }
    dlerror();
    void* symbol = dlsym(handle, FF_PLUGIN_ENTRY_NAME);
    if (!symbol) {
        dlclose(handle);
        return prefix + "not a fieldflow plugin: it exports no '" FF_PLUGIN_ENTRY_NAME "' entry point";
    }
    auto entry = reinterpret_cast<ff_plugin_entry_fn>(symbol);
    std::vector<OpInfo> ops;
    std::string error = read_plugin_info(entry(), path, ops);
    if (error.empty()) error = registry.add(std::move(ops));
    // The library stays loaded even on error: unloading code that ran static constructors is
    // riskier than a small leak in a process that is about to report the error anyway.
    return error.empty() ? std::string() : prefix + error;
}

std::string executable_dir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return ".";
    return exe.parent_path().string();
}

std::vector<std::string> plugin_search_candidates() {
    std::vector<std::string> dirs;
    const fs::path exe_dir = executable_dir();
    for (const fs::path& candidate : {exe_dir / "plugins", exe_dir / ".." / "lib" / "fieldflow" / "plugins"})
        dirs.push_back(candidate.lexically_normal().string());
    if (const char* env = std::getenv("FIELDFLOW_PLUGIN_PATH"))
        for (const std::string& dir : split(env, ':'))
            if (!dir.empty()) dirs.push_back(dir);
    return dirs;
}

std::vector<std::string> plugin_search_dirs() {
    std::vector<std::string> dirs;
    for (const std::string& candidate : plugin_search_candidates()) {
        std::error_code ec;
        if (fs::is_directory(candidate, ec)) dirs.push_back(candidate); // a stale entry is no error
    }
    return dirs;
}

std::vector<std::string> load_plugins(OpRegistry& registry,
                                      const std::vector<std::string>& extra_files,
                                      bool search_dirs) {
    std::vector<std::string> errors;
    std::set<fs::path> loaded; // the same file found twice (a folder and --plugin) loads once
    auto load = [&](const fs::path& file) {
        std::error_code ec;
        fs::path canonical = fs::weakly_canonical(file, ec);
        if (ec) canonical = file;
        if (!loaded.insert(canonical).second) return;
        if (std::string e = load_plugin_file(file.string(), registry); !e.empty()) errors.push_back(e);
    };
    if (search_dirs) {
        for (const std::string& dir : plugin_search_dirs()) {
            std::error_code ec;
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(dir, ec))
                if (entry.path().extension() == ".so" && !entry.is_directory()) files.push_back(entry.path());
            if (ec) {
                errors.push_back("plugin folder " + dir + ": " + ec.message());
                continue;
            }
            std::sort(files.begin(), files.end());
            for (const fs::path& file : files) load(file);
        }
    }
    for (const std::string& file : extra_files) load(file);
    return errors;
}

} // namespace fieldflow::host
