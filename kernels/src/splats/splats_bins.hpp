// The splat rasteriser's device side, shared by SplatTrainer, render_splats and the test entry
// point: the push constants of the splat kernels and the binning of splats into per-tile lists
// (count -> prefix sum -> emit), recorded into a caller's command buffer.
#pragma once

#include "fieldflow/engine/splats.hpp"
#include "field/gpu_model.hpp"

#include <bit>

namespace ff::engine::detail {

inline constexpr uint32_t kSplatTile = 16; // screen tile edge (pixels); TILE in splat_common.glsl

// Mirrors `Push` in shaders/splat_common.glsl; travels as the engine's 128-byte PushConstants
// (the splat kernels read the first 80).
struct SplatPush {
    uint32_t width = 0, height = 0, tiles_x = 0, tiles_y = 0;
    uint32_t count = 0, capacity = 0, slot = 0, tile_base = 0;
    float lr_position = 0, lr_cholesky = 0, lr_color = 0, beta1 = 0;
    float beta2 = 0, epsilon = 0, bias_correction1 = 1, bias_correction2 = 1;
    float loss_scale = 0, min_scale = 0, max_scale = 0;
    uint32_t pad[13] = {};
    PushConstants raw() const { return std::bit_cast<PushConstants>(*this); }
};
static_assert(sizeof(SplatPush) == sizeof(PushConstants));

// Checks a model's size, parameter count and values; throws EngineError saying what is wrong.
void require_valid_splats(const SplatModel& model);

// (tile, splat) pairs the binning passes emit for these parameters at width x height: the host
// replica of splat_tile_rect, for sizing the pair buffer.
uint64_t count_splat_pairs(const std::vector<float>& params, uint32_t width, uint32_t height);

// Per-tile splat lists for `count` splats held in `params` (kSplatParams floats each) at
// width x height pixels. The pair buffer holds `capacity` entries; a step that needs more drops
// the excess and records its total in `stats` (see peak_pairs).
class SplatBins {
public:
    SplatBins(DeviceImpl& device, CommandRunner& runner, const Buffer& params, uint32_t count,
              uint32_t width, uint32_t height, uint64_t capacity);

    // A push-constant block with the size, tile grid, count and capacity filled in.
    SplatPush push() const;
    // count -> barrier -> scan -> barrier -> emit -> barrier.
    void record(VkCommandBuffer cb) const;
    // Dispatches `set` once per tile (in chunks that respect the device's workgroup-count limit).
    void dispatch_tiles(VkCommandBuffer cb, const DescriptorSet& set, SplatPush pc) const;
    // Replaces the pair buffer by one of `capacity` entries (callers rebuild their sets on pairs()).
    void grow(uint64_t capacity);

    const Buffer& offsets() const { return offsets_; }
    const Buffer& pairs() const { return pairs_; }
    const Buffer& stats() const { return stats_; } // uint: largest pair total seen
    uint64_t capacity() const { return capacity_; }
    uint32_t tiles() const { return tiles_x_ * tiles_y_; }
    uint64_t device_bytes() const;

private:
    DeviceImpl& dev_;
    const Buffer& params_;
    uint32_t count_, width_, height_, tiles_x_, tiles_y_;
    uint64_t capacity_ = 0;
    Buffer counts_, offsets_, cursors_, pairs_, stats_;
    DescriptorSet count_set_, scan_set_, emit_set_;
};

// The rasteriser (splat_raster.comp). Render: {params, offsets, pairs, rgb out}; train:
// {params, offsets, pairs, target, grads, loss log} and, with write_image, {rgb out}.
const Kernel& splat_raster_kernel(DeviceImpl& device, bool train, bool write_image = false);

// The largest pair capacity a pair buffer may have on this device (entries).
uint64_t max_pair_capacity(const DeviceImpl& device);

} // namespace ff::engine::detail
