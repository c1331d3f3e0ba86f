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

namespace {

uint32_t be16(const unsigned char* p) { return uint32_t(p[0]) << 8 | p[1]; }
uint32_t be32(const unsigned char* p) { return be16(p) << 16 | be16(p + 2); }

// A PNG's signature and first chunk (IHDR, whose first fields are the width and height).
bool is_png_header(const unsigned char (&magic)[24], std::streamsize got) {
    static constexpr unsigned char kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    return got == 24 && std::equal(kPng, kPng + 8, magic) && std::memcmp(magic + 12, "IHDR", 4) == 0;
}

// Walks the JPEG's marker segments up to the first frame header (SOF0-SOF15 less DHT, JPG and
// DAC, which share the range): its height and width follow the precision byte.
std::optional<HeaderSize> jpeg_header_size(std::ifstream& file) {
    file.seekg(2);
    unsigned char marker[4];
    // A frame header comes within the first few segments; the bound stops a crafted file early.
    for (int segment = 0; segment < 1024; ++segment) {
        if (!file.read(reinterpret_cast<char*>(marker), 2) || marker[0] != 0xFF) return std::nullopt;
        const unsigned char kind = marker[1];
        if (kind == 0xFF) { // fill byte: the marker code follows
            file.seekg(-1, std::ios::cur);
            continue;
        }
        if (kind == 0xD8 || (kind >= 0xD0 && kind <= 0xD7) || kind == 0x01) continue; // no length
        if (kind == 0xD9 || kind == 0xDA) return std::nullopt; // end, or scan data before a frame
        if (!file.read(reinterpret_cast<char*>(marker), 2)) return std::nullopt;
        const uint32_t length = be16(marker);
        if (length < 2) return std::nullopt;
        const bool frame = kind >= 0xC0 && kind <= 0xCF && kind != 0xC4 && kind != 0xC8 && kind != 0xCC;
        if (frame) {
            unsigned char header[5]; // precision, height, width
            if (length < 7 || !file.read(reinterpret_cast<char*>(header), 5)) return std::nullopt;
            return HeaderSize{be16(header + 3), be16(header + 1)};
        }
        file.seekg(std::streamoff(length) - 2, std::ios::cur);
    }
    return std::nullopt;
}

// Whether a PNG file holds its IEND chunk (type and CRC) in its last 64 KiB: a file cut short
// ends without it (and libpng would print its own "Read Error" line while OpenCV says only
// "cannot decode"). Some writers append bytes after it, hence a search, not the last 12 bytes.
bool png_has_end_chunk(const std::string& path) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) return false;
    const std::streamoff size = file.tellg();
    const std::streamoff begin = std::max<std::streamoff>(0, size - (std::streamoff(1) << 16));
    std::string tail(size_t(size - begin), '\0');
    file.seekg(begin);
    if (!file.read(tail.data(), std::streamsize(tail.size()))) return false;
    return tail.find(std::string("IEND\xAE\x42\x60\x82", 8)) != std::string::npos;
}

} // namespace

std::optional<HeaderSize> image_header_size(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    unsigned char magic[24] = {};
    file.read(reinterpret_cast<char*>(magic), sizeof magic);
    if (is_png_header(magic, file.gcount())) return HeaderSize{be32(magic + 16), be32(magic + 20)};
    file.clear();
    if (magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) return jpeg_header_size(file);
    return std::nullopt;
}

std::optional<bool> png_may_hold_alpha(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    unsigned char magic[24] = {};
    file.read(reinterpret_cast<char*>(magic), sizeof magic);
    if (!is_png_header(magic, file.gcount())) return std::nullopt;
    unsigned char ihdr_rest[5] = {}; // bit depth, colour type, compression, filter, interlace
    file.read(reinterpret_cast<char*>(ihdr_rest), sizeof ihdr_rest);
    if (file.gcount() != sizeof ihdr_rest) return std::nullopt;
    if (ihdr_rest[1] & 4) return true; // gray + alpha (4) or RGBA (6)
    // The chunks after IHDR (its 13 data bytes and CRC end at byte 33), up to the image data.
    file.seekg(33);
    for (int chunks = 0; chunks < 1024; ++chunks) {
        unsigned char head[8];
        file.read(reinterpret_cast<char*>(head), sizeof head);
        if (file.gcount() != sizeof head) return std::nullopt;
        const uint32_t length = be32(head);
        const std::string type(reinterpret_cast<const char*>(head + 4), 4);
        if (type == "tRNS") return true;
        if (type == "IDAT" || type == "IEND") return false;
        file.seekg(std::streamoff(length) + 4, std::ios::cur); // data and CRC
        if (!file) return std::nullopt;
    }
    return std::nullopt;
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
    if (is_png_header(magic, got)) {
        const uint32_t width = be32(magic + 16), height = be32(magic + 20);
        // OpenCV would only say "cannot decode": name the actual problem.
        if (width == 0 || height == 0)
            throw Error(quoted + " is a PNG of " + std::to_string(width) + "x" +
                        std::to_string(height) + " pixels (an image needs at least 1x1)");
    }
    if (is_png_header(magic, got) && !png_has_end_chunk(path))
        throw Error(quoted + " is a truncated PNG (it ends without its IEND chunk)");
    if (is_jpeg && !jpeg_has_end_marker(path))
        throw Error(quoted + " is a truncated JPEG (its image data ends without an end-of-image "
                             "marker)");
}

} // namespace ff::nodes
