#include "io/image_file_checks.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace fs = std::filesystem;

namespace ff::nodes {

bool jpeg_has_end_marker(const std::string& path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) return false;
    const std::streamoff size = file.tellg();
    constexpr std::streamoff kChunk = 1 << 16;
    std::vector<unsigned char> buffer;
    // Read backwards in chunks that overlap by one byte, so a marker split across two chunks is
    // still seen.
    for (std::streamoff end = size; end > 1;) {
        const std::streamoff begin = std::max<std::streamoff>(0, end - kChunk);
        buffer.resize(size_t(end - begin));
        file.seekg(begin);
        if (!file.read(reinterpret_cast<char*>(buffer.data()), std::streamsize(buffer.size())))
            return false;
        for (size_t i = buffer.size() - 1; i > 0; --i) {
            if (buffer[i - 1] != 0xFF) continue;
            if (buffer[i] == 0xD9) return true;  // EOI
            if (buffer[i] == 0xDA) return false; // SOS with no EOI after it
        }
        if (begin == 0) break;
        end = begin + 1;
    }
    return false;
}

void check_readable_image_file(const std::string& path) {
    const std::string quoted = "'" + path + "'";
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (status.type() == fs::file_type::not_found) throw Error("file not found: " + quoted);
    if (error) throw Error("cannot access " + quoted + ": " + error.message());
    if (status.type() == fs::file_type::directory) throw Error(quoted + " is a folder, not an image file");
    if (status.type() != fs::file_type::regular) throw Error(quoted + " is not a regular file");
    const auto size = fs::file_size(path, error);
    if (error) throw Error("cannot access " + quoted + ": " + error.message());
    if (size == 0) throw Error(quoted + " is empty (0 bytes)");

    std::ifstream file(path, std::ios::binary);
    if (!file) throw Error("cannot open " + quoted + ": " + std::strerror(errno));
    // Enough for a JPEG's magic, and a PNG's signature plus the size in its first chunk (IHDR).
    unsigned char magic[24] = {};
    file.read(reinterpret_cast<char*>(magic), sizeof magic);
    const auto got = file.gcount();
    const bool is_jpeg = got >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF;
    static constexpr unsigned char kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    const bool is_png = got == 24 && std::equal(kPng, kPng + 8, magic) &&
                        std::memcmp(magic + 12, "IHDR", 4) == 0;
    if (is_png) {
        auto be32 = [&](int at) {
            return uint32_t(magic[at]) << 24 | uint32_t(magic[at + 1]) << 16 |
                   uint32_t(magic[at + 2]) << 8 | uint32_t(magic[at + 3]);
        };
        const uint32_t width = be32(16), height = be32(20);
        // OpenCV would only say "cannot decode": name the actual problem.
        if (width == 0 || height == 0)
            throw Error(quoted + " is a PNG of " + std::to_string(width) + "x" +
                        std::to_string(height) + " pixels (an image needs at least 1x1)");
    }
    if (is_jpeg && !jpeg_has_end_marker(path))
        throw Error(quoted + " is a truncated JPEG (its image data ends without an end-of-image "
                             "marker)");
}

} // namespace ff::nodes
