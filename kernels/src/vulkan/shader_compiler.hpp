// GLSL -> SPIR-V at run time with shaderc, with an on-disk cache keyed by XXH3-128 of the
// shader's name, preprocessed source, defines and compiler version. Cache files (format FFSPV002)
// hold the key and a checksum over key + SPIR-V, so a file under another key's name is rejected.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ff::engine::detail {

using Defines = std::vector<std::pair<std::string, std::string>>;

struct CompileResult {
    std::vector<uint32_t> spirv;
    bool from_cache = false;
    std::string cache_path;           // file the SPIR-V was read from / written to ("" if none)
    std::vector<std::string> warnings; // cache problems (never fatal)
};

// The cache folder: $FIELDFLOW_SPIRV_CACHE_DIR when set (empty: no cache), else
// $FIELDFLOW_CACHE_DIR, else $XDG_CACHE_HOME/fieldflow/spirv, else ~/.cache/fieldflow/spirv
// ("" if none can be named).
std::string spirv_cache_dir();

// Compiles `name` (an embedded shader, e.g. "render.comp") with the given defines. `source`
// overrides the embedded text of the main file (tests); includes always come from the embedded
// sources. Throws EngineError with the compiler's message and the offending source line.
CompileResult compile_shader(const std::string& name, const Defines& defines,
                             const char* source = nullptr);

} // namespace ff::engine::detail
