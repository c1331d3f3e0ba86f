// How many pixels ReadImage accepts: `max_pixels` when it is set, else (0, the default) what this
// machine's memory holds for the main job, and never more than OpenCV's decoders read.
#pragma once

#include <cstdint>
#include <string>

namespace ff::nodes {

// Host memory the main job (graphs/lake.yaml) needs per pixel at its peak: three float RGB images
// (the source, the baseline and the learned render: 36 bytes), the report's working copies (about
// 20: 8-bit views, error maps, SSIM tiles, as the report's peak at 8192x8192 in
// bench/archive/RESULTS.md, "the report and metrics on large images") and the decoded file (3 to
// 6). Rounded up to 64.
inline constexpr uint64_t kBytesPerPixel = 64;

// The limit a `max_pixels` of 0 stands for: `memory_bytes` / kBytesPerPixel.
uint64_t memory_pixel_limit(uint64_t memory_bytes);

// This machine's memory: physical memory (sysconf), or the cgroup's limit when that is lower
// (a container); 0 if neither can be read.
uint64_t host_memory_bytes();

// The most pixels OpenCV's decoders read: OPENCV_IO_MAX_IMAGE_PIXELS (the variable OpenCV itself
// reads) when set to a number, else OpenCV's default, 2^30.
uint64_t decoder_pixel_limit();

struct PixelLimit {
    uint64_t pixels = 0;
    std::string reason; // ", over <reason>" completes the refusal
};

// The limit for a `max_pixels` param value (0: auto, from host_memory_bytes()).
PixelLimit pixel_limit(int64_t max_pixels);

// Throws ff::ParamError("max_pixels") when width x height exceeds the decoders' limit or
// pixel_limit(max_pixels), naming the image, its size, `source` (where the size was read, e.g.
// " (from its header)") and the limit with its reason.
void check_pixel_limit(const std::string& path, uint64_t width, uint64_t height, int64_t max_pixels,
                       const char* source);

} // namespace ff::nodes
