// The training image on the device: the target the training step and the full-image error read.
// It travels as RGBA8 (one 32-bit word a pixel, 4x smaller than float) for 8-bit sources and as
// RGBA16 (two words: RG, BA) for deeper ones, so their precision is learned. A gigapixel image
// outgrows one storage buffer (maxStorageBufferRange: 4 GB on NVIDIA, 128 MB on lavapipe), so the
// words are split into parts of 2^part_shift words, one binding each (target_image.glsl).
#pragma once

#include "vulkan/shader_compiler.hpp"
#include "vulkan/vk_device.hpp"

#include <cstdint>
#include <vector>

namespace ff::engine::detail {

// At most this many parts: 8 x 2 GB on NVIDIA (4.3 gigapixels at RGBA8), 8 x 128 MB on lavapipe.
inline constexpr uint32_t kMaxImageParts = 8;

struct TargetImageLayout {
    bool rgba16 = false;
    uint64_t words = 0;      // 32-bit words of the whole image
    uint32_t part_shift = 0; // log2 of the words a part holds (all but the last are full)
    uint32_t parts = 1;

    // The layout on `device` (its buffer cap); throws EngineError when even kMaxImageParts parts
    // cannot hold the image.
    static TargetImageLayout of(const DeviceFeatures& device, uint32_t width, uint32_t height, uint32_t source_bits);
    uint64_t part_words(uint32_t part) const;
    uint64_t bytes() const { return words * 4; }
    // IMAGE_RGBA16, IMAGE_PARTS, IMAGE_PART_LIST(X), IMAGE_PART_SHIFT and IMAGE_BINDING (the first
    // part's binding); returns the kernel's binding count, the parts being its last bindings.
    uint32_t add_defines(Defines& defines, uint32_t first_binding) const;
};

class TargetImage {
public:
    TargetImage() = default;
    // Allocates the parts and uploads the image (3 floats a pixel, clamped to [0, 1]) through a
    // bounded staging buffer, packing as it goes: no whole packed copy on the host.
    TargetImage(DeviceImpl& device, CommandRunner& runner, const TargetImageLayout& layout,
                const std::vector<float>& rgb);

    const TargetImageLayout& layout() const { return layout_; }
    // `buffers` (a kernel's bindings before the image's) followed by the parts.
    std::vector<const Buffer*> after(std::vector<const Buffer*> buffers) const;
    uint64_t allocated() const;

private:
    TargetImageLayout layout_;
    std::vector<Buffer> parts_;
};

} // namespace ff::engine::detail
