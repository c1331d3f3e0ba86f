#include "pixel_limit.hpp"

#include <fieldflow/node.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace ff::nodes {
namespace {

// A cgroup v2 memory limit ("max" or a byte count), or 0 when there is none.
uint64_t cgroup_memory_limit() {
    std::ifstream in("/sys/fs/cgroup/memory.max");
    std::string text;
    if (!(in >> text) || text == "max") return 0;
    char* end = nullptr;
    const unsigned long long bytes = std::strtoull(text.c_str(), &end, 10);
    return end && *end == '\0' ? uint64_t(bytes) : 0;
}

std::string gib_text(uint64_t bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f GiB", double(bytes) / double(uint64_t(1) << 30));
    return buffer;
}

} // namespace

uint64_t memory_pixel_limit(uint64_t memory_bytes) { return memory_bytes / kBytesPerPixel; }

uint64_t host_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    uint64_t bytes = pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
    if (const uint64_t limit = cgroup_memory_limit(); limit > 0 && (bytes == 0 || limit < bytes))
        bytes = limit;
    return bytes;
}

uint64_t decoder_pixel_limit() {
    if (const char* text = std::getenv("OPENCV_IO_MAX_IMAGE_PIXELS"); text && *text) {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(text, &end, 10);
        if (end && *end == '\0' && value > 0) return uint64_t(value);
    }
    return uint64_t(1) << 30;
}

PixelLimit pixel_limit(int64_t max_pixels) {
    if (max_pixels > 0) return {uint64_t(max_pixels), "max_pixels = " + std::to_string(max_pixels)};
    const uint64_t memory = host_memory_bytes();
    if (memory == 0) return {decoder_pixel_limit(), "the decoders' limit (host memory unknown)"};
    const uint64_t pixels = memory_pixel_limit(memory);
    return {pixels, std::to_string(pixels) + " pixels, what this machine's " + gib_text(memory) +
                        " of memory holds at the " + std::to_string(kBytesPerPixel) +
                        " bytes per pixel the main job needs (max_pixels 0 = auto; set it to "
                        "raise the limit)"};
}

void check_pixel_limit(const std::string& path, uint64_t width, uint64_t height, int64_t max_pixels,
                       const char* source) {
    const uint64_t pixels = width * height;
    const std::string what = "'" + path + "' is " + std::to_string(width) + "x" +
                             std::to_string(height) + " = " + std::to_string(pixels) + " pixels" +
                             source + ", over ";
    // First the limit no setting of max_pixels lifts, so the message is the same on every machine.
    if (const uint64_t decoders = decoder_pixel_limit(); pixels > decoders)
        throw ParamError("max_pixels", what + std::to_string(decoders) +
                                           " pixels, the most OpenCV's decoders read "
                                           "(OPENCV_IO_MAX_IMAGE_PIXELS)");
    const PixelLimit limit = pixel_limit(max_pixels);
    if (pixels > limit.pixels) throw ParamError("max_pixels", what + limit.reason);
}

} // namespace ff::nodes
