// The splat rasteriser's test entry point (fieldflow/engine/splats_testing.hpp).
#include "fieldflow/engine/splats_testing.hpp"

#include "splats/splats_bins.hpp"

namespace ff::engine::testing {

using namespace detail;

SplatForwardBackward splat_forward_backward(const Device& device, const SplatModel& model,
                                            const ImageData& target) {
    require_valid_splats(model);
    if (target.width != model.width || target.height != model.height ||
        target.rgb.size() != size_t(target.width) * target.height * 3)
        throw EngineError("splat_forward_backward: the target must be a " + std::to_string(model.width) +
                          "x" + std::to_string(model.height) + " RGB image");
    DeviceImpl& dev = device.impl();
    CommandRunner runner(dev);
    auto local = [&](size_t bytes, const char* name) {
        return Buffer(dev, bytes, MemoryKind::device_local, name);
    };
    Buffer params = local(model.params.size() * 4, "splat parameters");
    Buffer grads = local(model.params.size() * 4, "splat gradients");
    Buffer target_buf = local(target.rgb.size() * 4, "splat target image");
    Buffer image = local(target.rgb.size() * 4, "splat image");
    Buffer loss = local(4, "splat loss");
    upload(dev, runner, params, model.params.data(), model.params.size() * 4);
    upload(dev, runner, target_buf, target.rgb.data(), target.rgb.size() * 4);
    fill_zero(runner, {&grads, &image, &loss});
    uint64_t pairs = count_splat_pairs(model.params, model.width, model.height);
    SplatBins bins(dev, runner, params, model.config.count, model.width, model.height,
                   pairs + pairs / 4 + 1024);
    DescriptorSet set(dev, splat_raster_kernel(dev, true, true),
                      {&params, &bins.offsets(), &bins.pairs(), &target_buf, &grads, &loss, &image});
    SplatPush pc = bins.push();
    pc.loss_scale = 2.0f / (3.0f * float(model.width) * float(model.height));
    runner.run([&](VkCommandBuffer cb) {
        compute_barrier(cb);
        bins.record(cb);
        bins.dispatch_tiles(cb, set, pc);
    });

    SplatForwardBackward r;
    float l = 0;
    uint32_t peak = 0;
    download(dev, runner, loss, &l, 4);
    download(dev, runner, bins.stats(), &peak, 4);
    if (peak > bins.capacity()) throw EngineError("internal: splat pair buffer overflowed");
    r.loss = l;
    r.pairs = peak;
    r.rgb.resize(target.rgb.size());
    download(dev, runner, image, r.rgb.data(), r.rgb.size() * 4);
    r.grads.resize(model.params.size());
    download(dev, runner, grads, r.grads.data(), r.grads.size() * 4);
    return r;
}

} // namespace ff::engine::testing
