#include "shader_compiler.hpp"

#include "fieldflow/engine/engine.hpp"
#include "shader_sources.hpp"

#include <shaderc/shaderc.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

#ifndef FF_SHADERC_VERSION
#define FF_SHADERC_VERSION "unknown"
#endif

namespace ff::engine::detail {
namespace fs = std::filesystem;

namespace {

// File layout: magic | key (XXH3-128 of everything the SPIR-V depends on: shader name,
// preprocessed source, defines, compiler version) | XXH3-128 of key + SPIR-V | SPIR-V words.
// The checksum covering the key means a file copied or renamed to another key's name is a
// mismatch, never another shader served in its place.
constexpr char kCacheMagic[8] = {'F', 'F', 'S', 'P', 'V', '0', '0', '2'};
constexpr size_t kCacheHeader = sizeof kCacheMagic + 16 + 16;

// Resolves #include "x.glsl" from the embedded sources only, so a shader never depends on files
// next to the binary. Each file is included once a compile (as `#pragma once` would, which
// glslang does not implement): a later #include of the same file yields nothing, so the shader
// files need no include guards.
class EmbeddedIncluder : public shaderc::CompileOptions::IncluderInterface {
public:
    shaderc_include_result* GetInclude(const char* requested, shaderc_include_type, const char*,
                                       size_t) override {
        auto* holder = new Holder;
        const char* text = find_shader_source(requested);
        if (text) {
            holder->name = requested;
            if (included_.insert(requested).second) holder->content = text;
        } else {
            holder->name = "";
            holder->content = std::string("no embedded shader file named '") + requested + "'";
        }
        holder->result.source_name = holder->name.c_str();
        holder->result.source_name_length = holder->name.size();
        holder->result.content = holder->content.c_str();
        holder->result.content_length = holder->content.size();
        holder->result.user_data = holder;
        return &holder->result;
    }
    void ReleaseInclude(shaderc_include_result* data) override {
        delete static_cast<Holder*>(data->user_data);
    }

private:
    struct Holder {
        shaderc_include_result result{};
        std::string name;
        std::string content;
    };
    std::set<std::string> included_;
};

shaderc::CompileOptions make_options(const Defines& defines) {
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    options.SetOptimizationLevel(shaderc_optimization_level_performance);
    options.SetIncluder(std::make_unique<EmbeddedIncluder>());
    for (const auto& [key, value] : defines) options.AddMacroDefinition(key, value);
    return options;
}

std::string line_of(const char* text, long line) {
    if (!text || line < 1) return {};
    std::istringstream in(text);
    std::string s;
    for (long i = 1; std::getline(in, s); ++i)
        if (i == line) return s;
    return {};
}

// Appends the offending source line to each "file:line: error" of a shaderc message.
std::string explain_errors(const std::string& message, const std::string& main_name,
                           const char* main_text) {
    std::ostringstream out;
    std::istringstream in(message);
    std::string row;
    while (std::getline(in, row)) {
        out << row << "\n";
        size_t c1 = row.find(':');
        if (c1 == std::string::npos) continue;
        size_t c2 = row.find(':', c1 + 1);
        if (c2 == std::string::npos) continue;
        std::string file = row.substr(0, c1);
        char* end = nullptr;
        long line = std::strtol(row.c_str() + c1 + 1, &end, 10);
        if (end != row.c_str() + c2) continue;
        const char* text = file == main_name ? main_text : find_shader_source(file);
        std::string src = line_of(text, line);
        if (!src.empty()) out << "    " << file << ":" << line << " | " << src << "\n";
    }
    return out.str();
}

std::string hex128(XXH128_hash_t h) {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", (unsigned long long)h.high64,
                  (unsigned long long)h.low64);
    return buf;
}

XXH128_hash_t keyed_checksum(const XXH128_hash_t& key, const void* spirv, size_t bytes) {
    XXH3_state_t* state = XXH3_createState();
    XXH3_128bits_reset(state);
    XXH3_128bits_update(state, &key.high64, 8);
    XXH3_128bits_update(state, &key.low64, 8);
    XXH3_128bits_update(state, spirv, bytes);
    const XXH128_hash_t sum = XXH3_128bits_digest(state);
    XXH3_freeState(state);
    return sum;
}

// What is at a cache path that is not a file, for the warning.
const char* not_a_file(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    return "not a regular file";
}

// The whole file, or false with `problem` set when something unusable is there (nothing there
// is a plain miss). Opened without blocking and checked on the open descriptor, so a FIFO or a
// folder in the cache's place is a warning, never a hang or an exception.
bool read_file(const std::string& path, std::string& data, std::string& problem) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            problem = "SPIR-V cache file " + path + " cannot be read (" + std::strerror(errno) + "); recompiling";
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        problem = "SPIR-V cache path " + path + " is " + not_a_file(st.st_mode) +
                  ", not a file; recompiling (not cached while it is there)";
        ::close(fd);
        return false;
    }
    data.resize(size_t(st.st_size));
    size_t got = 0;
    while (got < data.size()) {
        const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += size_t(n);
    }
    ::close(fd);
    data.resize(got);
    return true;
}

bool read_cache(const std::string& path, const XXH128_hash_t& key, std::vector<uint32_t>& spirv,
                std::string& problem) {
    std::string data;
    if (!read_file(path, data, problem)) return false;
    if (data.size() < kCacheHeader + 20 || std::memcmp(data.data(), kCacheMagic, 8) != 0 ||
        (data.size() - kCacheHeader) % 4 != 0) {
        problem = "SPIR-V cache file " + path + " is malformed; recompiling";
        return false;
    }
    XXH128_hash_t stored_key, stored_sum;
    std::memcpy(&stored_key.high64, data.data() + 8, 8);
    std::memcpy(&stored_key.low64, data.data() + 16, 8);
    std::memcpy(&stored_sum.high64, data.data() + 24, 8);
    std::memcpy(&stored_sum.low64, data.data() + 32, 8);
    const XXH128_hash_t actual = keyed_checksum(stored_key, data.data() + kCacheHeader, data.size() - kCacheHeader);
    if (!XXH128_isEqual(stored_sum, actual)) {
        problem = "SPIR-V cache file " + path + " is corrupted (checksum mismatch); recompiling";
        return false;
    }
    if (!XXH128_isEqual(stored_key, key)) {
        problem = "SPIR-V cache file " + path + " holds another shader or configuration (its key " +
                  hex128(stored_key) + " is not its name's); recompiling";
        return false;
    }
    spirv.resize((data.size() - kCacheHeader) / 4);
    std::memcpy(spirv.data(), data.data() + kCacheHeader, data.size() - kCacheHeader);
    if (spirv[0] != 0x07230203u) {
        problem = "SPIR-V cache file " + path + " holds no SPIR-V; recompiling";
        spirv.clear();
        return false;
    }
    return true;
}

// Temp file + rename: a reader never sees a half-written file.
bool write_cache(const std::string& dir, const std::string& path, const XXH128_hash_t& key,
                 const std::vector<uint32_t>& spirv, std::string& problem) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        problem = "cannot create SPIR-V cache folder " + dir + ": " + ec.message();
        return false;
    }
    std::random_device rd;
    std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) {
            problem = "cannot write SPIR-V cache file " + tmp;
            return false;
        }
        const XXH128_hash_t h = keyed_checksum(key, spirv.data(), spirv.size() * 4);
        f.write(kCacheMagic, 8);
        f.write(reinterpret_cast<const char*>(&key.high64), 8);
        f.write(reinterpret_cast<const char*>(&key.low64), 8);
        f.write(reinterpret_cast<const char*>(&h.high64), 8);
        f.write(reinterpret_cast<const char*>(&h.low64), 8);
        f.write(reinterpret_cast<const char*>(spirv.data()), spirv.size() * 4);
        f.flush();
        if (!f) {
            problem = "cannot write SPIR-V cache file " + tmp;
            f.close();
            fs::remove(tmp, ec);
            return false;
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        problem = "cannot rename " + tmp + " to " + path + ": " + ec.message();
        fs::remove(tmp, ec);
        return false;
    }
    return true;
}

} // namespace

// $FIELDFLOW_SPIRV_CACHE_DIR when set: the folder, or empty for no cache. The fieldflow program
// sets it from its own --cache DIR (DIR/spirv) and --no-cache (empty) before any device opens,
// so the engine follows the run's cache options without knowing about them. Unset (the engine
// used on its own): $FIELDFLOW_CACHE_DIR, else $XDG_CACHE_HOME/fieldflow/spirv, else
// ~/.cache/fieldflow/spirv.
std::string spirv_cache_dir() {
    if (const char* d = std::getenv("FIELDFLOW_SPIRV_CACHE_DIR")) return d;
    if (const char* d = std::getenv("FIELDFLOW_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/fieldflow/spirv";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.cache/fieldflow/spirv";
    return {};
}

// XXH3-128 of every embedded shader file (name and text), once per process: a kernel's key covers
// the files it includes without preprocessing it (shaderc's preprocessor takes ~50 ms per
// kernel, most of a warm start), at the price of a recompile of every kernel when any file changes.
const XXH128_hash_t& embedded_sources_hash() {
    static const XXH128_hash_t hash = [] {
        XXH3_state_t* state = XXH3_createState();
        XXH3_128bits_reset(state);
        for (const ShaderSource& s : shader_sources()) {
            XXH3_128bits_update(state, s.name, std::strlen(s.name) + 1);
            XXH3_128bits_update(state, s.text, std::strlen(s.text) + 1);
        }
        const XXH128_hash_t h = XXH3_128bits_digest(state);
        XXH3_freeState(state);
        return h;
    }();
    return hash;
}

CompileResult compile_shader(const std::string& name, const Defines& defines,
                             const char* source) {
    const char* text = source ? source : find_shader_source(name);
    if (!text) throw EngineError("internal: no embedded shader named '" + name + "'");

    // The key: the shader's name and text, every embedded file it may include, the defines, and
    // the compiler's and SPIR-V's versions.
    unsigned spv_version = 0, spv_revision = 0;
    shaderc_get_spv_version(&spv_version, &spv_revision);
    const XXH128_hash_t sources = embedded_sources_hash();
    std::string key_text = "//" + name + "\n" + text + "\n//embedded " + hex128(sources);
    key_text += "\n//shaderc " FF_SHADERC_VERSION " spv " + std::to_string(spv_version) + "." +
                std::to_string(spv_revision) + " vulkan1.2 O\n";
    for (const auto& [k, v] : defines) key_text += "//-D" + k + "=" + v + "\n";
    const XXH128_hash_t key_hash = XXH3_128bits(key_text.data(), key_text.size());
    const std::string key = hex128(key_hash);

    CompileResult result;
    std::string dir = spirv_cache_dir();
    if (!dir.empty()) {
        result.cache_path = dir + "/" + name + "-" + key + ".spv";
        std::string problem;
        if (read_cache(result.cache_path, key_hash, result.spirv, problem)) {
            result.from_cache = true;
            return result;
        }
        if (!problem.empty()) result.warnings.push_back(problem);
    }

    shaderc::Compiler compiler;
    if (!compiler.IsValid()) throw EngineError("the shaderc compiler failed to initialise");
    shaderc::PreprocessedSourceCompilationResult pre = compiler.PreprocessGlsl(
        text, std::strlen(text), shaderc_compute_shader, name.c_str(), make_options(defines));
    if (pre.GetCompilationStatus() != shaderc_compilation_status_success)
        throw EngineError("shader " + name + " failed to preprocess:\n" +
                          explain_errors(pre.GetErrorMessage(), name, text));
    const std::string preprocessed(pre.cbegin(), pre.cend());
    shaderc::SpvCompilationResult spv = compiler.CompileGlslToSpv(
        preprocessed.data(), preprocessed.size(), shaderc_compute_shader, name.c_str(),
        make_options(defines));
    if (spv.GetCompilationStatus() != shaderc_compilation_status_success) {
        std::string defs;
        for (const auto& [k, v] : defines) defs += " -D" + k + "=" + v;
        throw EngineError("shader " + name + " failed to compile (defines:" + defs + "):\n" +
                          explain_errors(spv.GetErrorMessage(), name, text));
    }
    result.spirv.assign(spv.cbegin(), spv.cend());

    if (!dir.empty()) {
        std::string problem;
        if (!write_cache(dir, result.cache_path, key_hash, result.spirv, problem)) {
            result.warnings.push_back(problem + " (continuing without the cache)");
            result.cache_path.clear();
        }
    }
    return result;
}

} // namespace ff::engine::detail
