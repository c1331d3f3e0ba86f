// Minimal binary PPM (P6, maxval <= 255) reader / writer for the engine benchmark (no OpenCV).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ff::bench {

struct RgbImage {
    uint32_t width = 0, height = 0;
    std::vector<float> rgb; // [0,1], row-major, 3 per pixel
};

// Throws std::runtime_error naming the file and what is wrong with it.
RgbImage read_ppm(const std::string& path);
// Writes to a temporary file and renames it into place. Values are clamped to [0,1].
void write_ppm(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& rgb);

} // namespace ff::bench
