// Grayscale and box downsampling on the device: upload, one dispatch, read back.
#include "fieldflow/engine/image_ops.hpp"

#include "field/gpu_model.hpp"

namespace ff::engine {

namespace {

using namespace detail;

constexpr uint32_t kGroupSize = 256; // local_size_x of grayscale.comp and downsample.comp

std::string size_text(uint32_t w, uint32_t h) { return std::to_string(w) + "x" + std::to_string(h); }

// Runs `shader` over `invocations` pixels with `input` in binding 0 and returns `out_floats` floats
// from binding 1.
std::vector<float> run_image_kernel(const Device& device, const char* shader, const PushConstants& pc,
                                    const std::vector<float>& input, uint64_t invocations,
                                    uint64_t out_floats) {
    DeviceImpl& dev = device.impl();
    uint64_t groups = (invocations + kGroupSize - 1) / kGroupSize;
    if (groups > dev.properties().limits.maxComputeWorkGroupCount[0])
        throw EngineError(std::string(shader) + ": image too large for one dispatch on '" +
                          dev.info().name + "'");
    CommandRunner runner(dev);
    Buffer in(dev, input.size() * 4, MemoryKind::device_local, "image op input");
    Buffer out(dev, out_floats * 4, MemoryKind::device_local, "image op output");
    upload(dev, runner, in, input.data(), input.size() * 4);
    const Kernel& kernel = dev.kernel(shader, {}, 2);
    DescriptorSet set(dev, kernel, {&in, &out});
    runner.run([&](VkCommandBuffer cb) {
        compute_barrier(cb);
        set.dispatch(cb, pc, uint32_t(groups));
    });
    std::vector<float> result(out_floats);
    download(dev, runner, out, result.data(), result.size() * 4);
    return result;
}

void check_image(const char* op, uint32_t width, uint32_t height, uint32_t channels, size_t floats) {
    if (width == 0 || height == 0)
        throw EngineError(std::string(op) + ": image is empty (" + size_text(width, height) + ")");
    uint64_t pixels = uint64_t(width) * height;
    if (pixels >= (1ull << 31)) throw EngineError(std::string(op) + ": image is too large");
    if (floats != pixels * channels)
        throw EngineError(std::string(op) + ": image data holds " + std::to_string(floats) +
                          " floats, " + size_text(width, height) + "x" + std::to_string(channels) +
                          " needs " + std::to_string(pixels * channels));
}

} // namespace

std::vector<float> grayscale(const Device& device, uint32_t width, uint32_t height,
                             const std::vector<float>& rgb) {
    check_image("grayscale", width, height, 3, rgb.size());
    PushConstants pc;
    pc.width = width;
    pc.height = height;
    uint64_t pixels = uint64_t(width) * height;
    return run_image_kernel(device, "grayscale.comp", pc, rgb, pixels, pixels);
}

std::vector<float> downsample(const Device& device, uint32_t width, uint32_t height,
                              uint32_t channels, const std::vector<float>& pixels, uint32_t factor) {
    if (channels == 0 || channels > 64)
        throw EngineError("downsample: channels " + std::to_string(channels) + " must be 1..64");
    check_image("downsample", width, height, channels, pixels.size());
    if (factor == 0 || factor > width || factor > height)
        throw EngineError("downsample: factor " + std::to_string(factor) +
                          " must be at least 1 and at most the image's smaller side (" +
                          size_text(width, height) + ")");
    PushConstants pc;
    pc.grid_w = width / factor; // out_width, out_height in downsample.comp's view of the block
    pc.grid_h = height / factor;
    pc.width = width;
    pc.height = height;
    pc.batch = factor;
    pc.step = channels;
    uint64_t out_pixels = uint64_t(pc.grid_w) * pc.grid_h;
    return run_image_kernel(device, "downsample.comp", pc, pixels, out_pixels, out_pixels * channels);
}

} // namespace ff::engine
