// The engine's GLSL sources, embedded at build time (kernels/cmake/embed_shaders.cmake).
#pragma once

#include <string>
#include <vector>

namespace ff::engine::detail {

struct ShaderSource {
    const char* name; // file name inside kernels/shaders, e.g. "train_step.comp"
    const char* text;
};

const std::vector<ShaderSource>& shader_sources();

// The text of `name`, or nullptr if there is no such embedded file.
inline const char* find_shader_source(const std::string& name) {
    for (const ShaderSource& s : shader_sources())
        if (name == s.name) return s.text;
    return nullptr;
}

} // namespace ff::engine::detail
