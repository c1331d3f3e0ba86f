// fieldflow engine: simple image kernels on the compute device (grayscale, box downsampling),
// the GPU counterparts of the Grayscale and Downsample nodes' CPU code. Plain float buffers in and
// out, row-major, channels interleaved.
//
//   std::vector<float> luma = ff::engine::grayscale(device, 751, 563, rgb);      // 751*563 floats
//   std::vector<float> half = ff::engine::downsample(device, 751, 563, 3, rgb, 2); // 375x281x3
#pragma once

#include <fieldflow/engine/engine.hpp>

#include <cstdint>
#include <vector>

namespace ff::engine {

// 0.299 R + 0.587 G + 0.114 B per pixel of an RGB image (width * height * 3 floats); returns
// width * height floats. Throws EngineError on an empty image or a size mismatch.
std::vector<float> grayscale(const Device& device, uint32_t width, uint32_t height,
                             const std::vector<float>& rgb);

// Mean of each factor x factor block, every channel (1..64); remainder rows (bottom) and columns
// (right) are dropped: returns floor(width / factor) * floor(height / factor) * channels floats.
// Throws EngineError when the factor is 0 or larger than a side, or on a size mismatch.
std::vector<float> downsample(const Device& device, uint32_t width, uint32_t height,
                              uint32_t channels, const std::vector<float>& pixels, uint32_t factor);

} // namespace ff::engine
