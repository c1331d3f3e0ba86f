// Binning of splats into per-tile lists on the device (see splats_bins.hpp), and the host-side
// checks and pair counts that size it.
#include "splats_bins.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine::detail {

namespace {
constexpr uint32_t kBinGroup = 256; // local_size_x of splat_bin_count.comp / splat_emit.comp

// Inclusive tile rectangle of one splat, as splat_tile_rect in splat_common.glsl computes it.
struct TileRect {
    int x0 = 1, y0 = 1, x1 = 0, y1 = 0;
};
TileRect tile_rect(const float* s, uint32_t width, uint32_t height) {
    float rx = 3.0f * std::fabs(s[2]) + 1.0f;
    float ry = 3.0f * std::sqrt(s[3] * s[3] + s[4] * s[4]) + 1.0f;
    float px0 = std::max(std::floor(s[0] - rx - 0.5f), 0.0f);
    float px1 = std::min(std::ceil(s[0] + rx - 0.5f), float(width) - 1.0f);
    float py0 = std::max(std::floor(s[1] - ry - 0.5f), 0.0f);
    float py1 = std::min(std::ceil(s[1] + ry - 0.5f), float(height) - 1.0f);
    if (!(px0 <= px1 && py0 <= py1)) return {};
    int t = int(kSplatTile);
    return {int(px0) / t, int(py0) / t, int(px1) / t, int(py1) / t};
}
} // namespace

void require_valid_splats(const SplatModel& model) {
    if (std::string problem = model.config.validate(); !problem.empty())
        throw EngineError("invalid splat configuration: " + problem);
    if (model.width == 0 || model.height == 0)
        throw EngineError("splat model has an empty image size (" + std::to_string(model.width) +
                          "x" + std::to_string(model.height) + ")");
    if (model.params.size() != model.parameter_count())
        throw EngineError("splat model holds " + std::to_string(model.params.size()) +
                          " parameters, " + std::to_string(model.config.count) + " splats need " +
                          std::to_string(model.parameter_count()));
    for (size_t i = 0; i < model.params.size(); ++i)
        if (!std::isfinite(model.params[i]))
            throw EngineError("splat " + std::to_string(i / kSplatParams) + " has a non-finite parameter");
}

uint64_t count_splat_pairs(const std::vector<float>& params, uint32_t width, uint32_t height) {
    uint64_t n = 0;
    for (size_t o = 0; o + kSplatParams <= params.size(); o += kSplatParams) {
        TileRect r = tile_rect(&params[o], width, height);
        if (r.x0 <= r.x1 && r.y0 <= r.y1) n += uint64_t(r.x1 - r.x0 + 1) * uint64_t(r.y1 - r.y0 + 1);
    }
    return n;
}

uint64_t max_pair_capacity(const DeviceImpl& device) {
    // Entries are 4-byte splat indices; offsets are uint32.
    uint64_t by_range = device.max_buffer_bytes() / 4;
    return std::min<uint64_t>(by_range, 1ull << 30);
}

const Kernel& splat_raster_kernel(DeviceImpl& device, bool train, bool write_image) {
    Defines defines{{"TRAIN", train ? "1" : "0"}, {"WRITE_IMAGE", write_image ? "1" : "0"}};
    return device.kernel("splat_raster.comp", defines, train ? (write_image ? 7 : 6) : 4);
}

SplatBins::SplatBins(DeviceImpl& device, CommandRunner& runner, const Buffer& params,
                     uint32_t count, uint32_t width, uint32_t height, uint64_t capacity)
    : dev_(device), params_(params), count_(count), width_(width), height_(height),
      tiles_x_((width + kSplatTile - 1) / kSplatTile), tiles_y_((height + kSplatTile - 1) / kSplatTile) {
    if (div_up(count, kBinGroup) > device.properties().limits.maxComputeWorkGroupCount[0])
        throw EngineError(std::to_string(count) + " splats are too many for one dispatch");
    size_t tiles = size_t(tiles_x_) * tiles_y_;
    auto local = [&](size_t bytes, const char* name) {
        return Buffer(dev_, bytes, MemoryKind::device_local, name);
    };
    counts_ = local(tiles * 4, "splat tile counts");
    offsets_ = local((tiles + 1) * 4, "splat tile offsets");
    cursors_ = local(tiles * 4, "splat tile cursors");
    stats_ = local(16, "splat binning stats");
    fill_zero(runner, {&counts_, &offsets_, &cursors_, &stats_});
    const Kernel& k_count = dev_.kernel("splat_bin_count.comp", {}, 2);
    const Kernel& k_scan = dev_.kernel("splat_scan.comp", {}, 4);
    count_set_ = DescriptorSet(dev_, k_count, {&params_, &counts_});
    scan_set_ = DescriptorSet(dev_, k_scan, {&counts_, &offsets_, &cursors_, &stats_});
    grow(capacity);
}

void SplatBins::grow(uint64_t capacity) {
    uint64_t cap = max_pair_capacity(dev_);
    if (capacity > cap)
        throw EngineError("the splats cover " + std::to_string(capacity) +
                          " (tile, splat) pairs, more than the " + std::to_string(cap) +
                          " one pair buffer holds on '" + dev_.info().name +
                          "' (fewer or smaller splats, or a smaller image)");
    capacity_ = std::max<uint64_t>(capacity, 1);
    pairs_ = Buffer(dev_, capacity_ * 4, MemoryKind::device_local, "splat tile pairs");
    const Kernel& k_emit = dev_.kernel("splat_emit.comp", {}, 3);
    emit_set_ = DescriptorSet(dev_, k_emit, {&params_, &cursors_, &pairs_});
}

SplatPush SplatBins::push() const {
    SplatPush pc;
    pc.width = width_;
    pc.height = height_;
    pc.tiles_x = tiles_x_;
    pc.tiles_y = tiles_y_;
    pc.count = count_;
    pc.capacity = uint32_t(capacity_);
    return pc;
}

void SplatBins::record(VkCommandBuffer cb) const {
    PushConstants pc = push().raw();
    count_set_.dispatch(cb, pc, div_up(count_, kBinGroup));
    compute_barrier(cb);
    scan_set_.dispatch(cb, pc, 1);
    compute_barrier(cb);
    emit_set_.dispatch(cb, pc, div_up(count_, kBinGroup));
    compute_barrier(cb);
}

void SplatBins::dispatch_tiles(VkCommandBuffer cb, const DescriptorSet& set, SplatPush pc) const {
    uint32_t limit = dev_.properties().limits.maxComputeWorkGroupCount[0];
    for (uint32_t base = 0; base < tiles(); base += limit) {
        pc.tile_base = base;
        set.dispatch(cb, pc.raw(), std::min(limit, tiles() - base));
    }
}

uint64_t SplatBins::device_bytes() const {
    uint64_t n = 0;
    for (const Buffer* b : {&counts_, &offsets_, &cursors_, &pairs_, &stats_}) n += b->allocated();
    return n;
}

} // namespace ff::engine::detail
