#include "target_image.hpp"
#include "vulkan/size_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

namespace ff::engine::detail {

namespace {
// Staging holds at most this much at a time: the upload's host-visible memory stays bounded.
constexpr uint64_t kStagingBytes = 64ull << 20;

// Runs body(begin, end) over [0, count) in one slice per hardware thread (one slice for a small
// count: threads cost more than they save below a few hundred thousand words).
template <typename Body>
void parallel_for(uint64_t count, const Body& body) {
    const uint64_t threads = std::clamp<uint64_t>(std::thread::hardware_concurrency(), 1, count / (1 << 18) + 1);
    std::vector<std::thread> workers;
    for (uint64_t t = 1; t < threads; ++t)
        workers.emplace_back([&, t] { body(count * t / threads, count * (t + 1) / threads); });
    body(0, count / threads);
    for (std::thread& w : workers) w.join();
}
} // namespace

TargetImageLayout TargetImageLayout::of(const DeviceFeatures& device, uint32_t width, uint32_t height,
                                        uint32_t source_bits) {
    TargetImageLayout l;
    l.rgba16 = source_bits > 8;
    l.words = uint64_t(width) * height * (l.rgba16 ? 2 : 1);
    // The largest power-of-two word count within the cap (an even one: an RGBA16 pixel's two words
    // never straddle two parts).
    const uint64_t cap_words = device.max_buffer_bytes / 4;
    l.part_shift = 1;
    while ((uint64_t(1) << (l.part_shift + 1)) <= cap_words && l.part_shift < 31) ++l.part_shift;
    const uint64_t per_part = uint64_t(1) << l.part_shift;
    l.parts = l.words <= cap_words ? 1 : uint32_t((l.words + per_part - 1) / per_part);
    if (l.parts > kMaxImageParts)
        throw EngineError("the training image (" + std::to_string(width) + "x" + std::to_string(height) + ", " +
                          (l.rgba16 ? "RGBA16" : "RGBA8") + ") needs " + size_text(l.bytes()) + " on the device, more than " +
                          std::to_string(kMaxImageParts) + " buffers of " + size_text(per_part * 4) + " hold on '" +
                          device.name + "'");
    return l;
}

uint64_t TargetImageLayout::part_words(uint32_t part) const {
    if (parts == 1) return words;
    const uint64_t per_part = uint64_t(1) << part_shift;
    return std::min(per_part, words - uint64_t(part) * per_part);
}

uint32_t TargetImageLayout::add_defines(Defines& defines, uint32_t first_binding) const {
    if (rgba16) defines.push_back({"IMAGE_RGBA16", "1"});
    defines.push_back({"IMAGE_BINDING", std::to_string(first_binding)});
    defines.push_back({"IMAGE_PARTS", std::to_string(parts)});
    std::string list; // X(0) X(1) ... X(parts - 1): the parts' bindings and the reads' cases
    for (uint32_t p = 0; p < parts; ++p) list += (p ? " X(" : "X(") + std::to_string(p) + ")";
    defines.push_back({"IMAGE_PART_LIST(X)", list});
    if (parts > 1) defines.push_back({"IMAGE_PART_SHIFT", std::to_string(part_shift)});
    return first_binding + parts;
}

TargetImage::TargetImage(DeviceImpl& device, CommandRunner& runner, const TargetImageLayout& layout,
                         const std::vector<float>& rgb)
    : layout_(layout) {
    const char* format = layout.rgba16 ? "RGBA16" : "RGBA8";
    for (uint32_t p = 0; p < layout.parts; ++p) {
        const std::string name = layout.parts == 1 ? std::string("image (") + format + ")"
                                                   : "image part " + std::to_string(p + 1) + " of " +
                                                         std::to_string(layout.parts) + " (" + format + ")";
        parts_.emplace_back(device, layout.part_words(p) * 4, MemoryKind::device_local, name);
    }
    const float unit = layout.rgba16 ? 65535.0f : 255.0f;
    auto quantised = [&](uint64_t i) {
        float f = rgb[i];
        f = std::isfinite(f) ? std::clamp(f, 0.0f, 1.0f) : 0.0f;
        return uint32_t(std::lround(f * unit));
    };
    // Word w of the whole image: pixel w (RGBA8), or half of pixel w / 2 (RGBA16: RG, then BA).
    auto word = [&](uint64_t w) -> uint32_t {
        if (!layout.rgba16)
            return quantised(3 * w) | quantised(3 * w + 1) << 8 | quantised(3 * w + 2) << 16 | 0xFF000000u;
        const uint64_t p = w / 2;
        return w % 2 == 0 ? quantised(3 * p) | quantised(3 * p + 1) << 16 : quantised(3 * p + 2) | 0xFFFF0000u;
    };
    const uint64_t chunk_words = std::min<uint64_t>(kStagingBytes, device.max_buffer_bytes()) / 4;
    Buffer staging(device, std::min(chunk_words, layout.words) * 4, MemoryKind::upload, "image upload staging");
    uint64_t first = 0; // the whole image's first word of this part
    for (uint32_t p = 0; p < layout.parts; ++p) {
        const uint64_t n = layout.part_words(p);
        for (uint64_t done = 0; done < n;) {
            const uint64_t count = std::min(chunk_words, n - done);
            uint32_t* out = static_cast<uint32_t*>(staging.mapped());
            // Packed by all cores: a gigapixel image is 0.9 G words (about 10 s on one core).
            const uint64_t base = first + done;
            parallel_for(count, [&](uint64_t begin, uint64_t end) {
                for (uint64_t i = begin; i < end; ++i) out[i] = word(base + i);
            });
            runner.run([&](VkCommandBuffer cb) {
                const VkBufferCopy region{0, done * 4, count * 4};
                vkCmdCopyBuffer(cb, staging.handle(), parts_[p].handle(), 1, &region);
            });
            done += count;
        }
        first += n;
    }
}

std::vector<const Buffer*> TargetImage::after(std::vector<const Buffer*> buffers) const {
    for (const Buffer& b : parts_) buffers.push_back(&b);
    return buffers;
}

uint64_t TargetImage::allocated() const {
    uint64_t n = 0;
    for (const Buffer& b : parts_) n += b.allocated();
    return n;
}

} // namespace ff::engine::detail
