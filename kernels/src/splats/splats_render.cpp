// render_splats: a fitted splat model at any output size, in one submit (bin, then rasterise).
#include "splats_bins.hpp"

#include <algorithm>

namespace ff::engine {

using namespace detail;

std::vector<float> render_splats(const Device& device, const SplatModel& model, uint32_t width,
                                 uint32_t height) {
    require_valid_splats(model);
    DeviceImpl& dev = device.impl();
    uint64_t pixels = uint64_t(width) * height;
    uint64_t bytes = pixels * 3 * 4;
    if (pixels == 0 || bytes > dev.max_buffer_bytes())
        throw EngineError("render size " + std::to_string(width) + "x" + std::to_string(height) +
                          " is empty or too large for one buffer on '" + dev.info().name + "'");

    // Positions and covariances scale with the output: mu' = S mu, L' = S L, S = diag(sx, sy)
    // (L' stays lower-triangular with a positive diagonal).
    const float sx = float(width) / float(model.width), sy = float(height) / float(model.height);
    std::vector<float> params = model.params;
    for (size_t o = 0; o < params.size(); o += kSplatParams) {
        params[o] *= sx;
        params[o + 1] *= sy;
        params[o + 2] *= sx;
        params[o + 3] *= sy;
        params[o + 4] *= sy;
    }

    CommandRunner runner(dev);
    Buffer params_buf(dev, params.size() * 4, MemoryKind::device_local, "splat parameters");
    upload(dev, runner, params_buf, params.data(), params.size() * 4);
    // The host count replicates the device's rectangles; the margin absorbs rounding differences.
    uint64_t pairs = count_splat_pairs(params, width, height);
    SplatBins bins(dev, runner, params_buf, model.config.count, width, height,
                   std::min(pairs + pairs / 4 + 1024, max_pair_capacity(dev)));
    Buffer out(dev, bytes, MemoryKind::device_local, "splat render");
    const Kernel& raster = splat_raster_kernel(dev, false);

    for (int attempt = 0;; ++attempt) {
        DescriptorSet set(dev, raster, {&params_buf, &bins.offsets(), &bins.pairs(), &out});
        runner.run([&](VkCommandBuffer cb) {
            compute_barrier(cb);
            bins.record(cb);
            bins.dispatch_tiles(cb, set, bins.push());
        });
        uint32_t peak = 0;
        download(dev, runner, bins.stats(), &peak, 4);
        if (peak <= bins.capacity()) break;
        if (attempt > 0) throw EngineError("internal: splat pair count changed between renders");
        bins.grow(peak);
    }
    std::vector<float> rgb(pixels * 3);
    download(dev, runner, out, rgb.data(), bytes);
    return rgb;
}

} // namespace ff::engine
