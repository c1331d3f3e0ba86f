// File helpers shared by the neural tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ff::test {

// An empty scratch folder under the temp directory, unique to this process and `name`.
inline std::filesystem::path fresh_folder(const std::string& prefix, const std::string& name) {
    std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                   (prefix + "_" + name + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    return folder;
}

inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace ff::test
