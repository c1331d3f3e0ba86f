#include "gpu_model.hpp"

#include <cstring>

namespace ff::engine::detail {

void upload(DeviceImpl& device, CommandRunner& runner, const Buffer& dst, const void* data,
            size_t bytes) {
    if (bytes == 0) return;
    Buffer staging(device, bytes, MemoryKind::upload, "upload staging");
    std::memcpy(staging.mapped(), data, bytes);
    runner.run([&](VkCommandBuffer cb) {
        VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(cb, staging.handle(), dst.handle(), 1, &region);
    });
}

void download(DeviceImpl& device, CommandRunner& runner, const Buffer& src, void* data,
              size_t bytes) {
    if (bytes == 0) return;
    Buffer staging(device, bytes, MemoryKind::readback, "readback staging");
    runner.run([&](VkCommandBuffer cb) {
        compute_barrier(cb); // earlier shader writes are visible to the copy
        VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(cb, src.handle(), staging.handle(), 1, &region);
    });
    std::memcpy(data, staging.mapped(), bytes);
}

void fill_zero(CommandRunner& runner, const std::vector<const Buffer*>& buffers) {
    runner.run([&](VkCommandBuffer cb) {
        for (const Buffer* b : buffers) vkCmdFillBuffer(cb, b->handle(), 0, VK_WHOLE_SIZE, 0);
    });
}

void require_consistent(const Model& m) {
    require_valid(m.config);
    size_t grid = size_t(m.config.grid_width) * m.config.grid_height * m.config.grid_channels;
    size_t mlp = mlp_layout(m.config).total;
    if (m.grid.size() != grid)
        throw EngineError("model grid holds " + std::to_string(m.grid.size()) + " floats, its " +
                          "configuration needs " + std::to_string(grid));
    if (m.mlp.size() != mlp)
        throw EngineError("model MLP holds " + std::to_string(m.mlp.size()) + " floats, its " +
                          "configuration needs " + std::to_string(mlp));
}

GpuModel::GpuModel(DeviceImpl& device, CommandRunner& runner, const Model& model)
    : config(model.config), layout(mlp_layout(model.config)),
      mlp(device, model.mlp.size() * 4, MemoryKind::device_local, "MLP parameters"),
      grid(device, model.grid.size() * 4, MemoryKind::device_local, "feature grid") {
    require_consistent(model);
    upload(device, runner, mlp, model.mlp.data(), model.mlp.size() * 4);
    upload(device, runner, grid, model.grid.data(), model.grid.size() * 4);
}

Model GpuModel::download(DeviceImpl& device, CommandRunner& runner) const {
    Model m;
    m.config = config;
    m.mlp.resize(layout.total);
    m.grid.resize(size_t(config.grid_width) * config.grid_height * config.grid_channels);
    detail::download(device, runner, mlp, m.mlp.data(), m.mlp.size() * 4);
    detail::download(device, runner, grid, m.grid.data(), m.grid.size() * 4);
    return m;
}

const Kernel& train_kernel(DeviceImpl& device, const ModelConfig& config, const TrainTiling& tiling,
                           bool explicit_samples) {
    Defines d = model_defines(config);
    d.push_back({"TILE", std::to_string(tiling.tile)});
    d.push_back({"WEIGHTS_IN_SHARED", tiling.weights_in_shared ? "1" : "0"});
    if (explicit_samples) d.push_back({"EXPLICIT_SAMPLES", "1"});
    return device.kernel("train_step.comp", d, explicit_samples ? 9 : 7);
}

std::vector<float> render_buffers(DeviceImpl& device, CommandRunner& runner,
                                  const ModelConfig& config, const Buffer& mlp, const Buffer& grid,
                                  uint32_t width, uint32_t height) {
    if (width == 0 || height == 0)
        throw EngineError("render size " + std::to_string(width) + "x" + std::to_string(height) +
                          " is empty");
    uint64_t pixels = uint64_t(width) * height;
    uint64_t bytes = pixels * config.output_dims * 4;
    const auto& limits = device.properties().limits;
    uint64_t groups = (pixels + 63) / 64;
    if (pixels >= (1ull << 32) || bytes > limits.maxStorageBufferRange ||
        groups > limits.maxComputeWorkGroupCount[0])
        throw EngineError("render size " + std::to_string(width) + "x" + std::to_string(height) +
                          " is too large for one dispatch on '" + device.info().name + "' (" +
                          std::to_string(bytes) + " bytes of output)");
    const Kernel& k = device.kernel("render.comp", model_defines(config), 3);
    Buffer out(device, bytes, MemoryKind::device_local, "render output");
    Buffer staging(device, bytes, MemoryKind::readback, "render readback");
    DescriptorSet set(device, k, {&mlp, &grid, &out});
    PushConstants pc;
    pc.grid_w = config.grid_width;
    pc.grid_h = config.grid_height;
    pc.width = width;
    pc.height = height;
    runner.run([&](VkCommandBuffer cb) {
        compute_barrier(cb); // earlier uploads / training steps are visible to the render
        set.dispatch(cb, pc, uint32_t(groups));
        compute_barrier(cb);
        VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(cb, out.handle(), staging.handle(), 1, &region);
    });
    std::vector<float> rgb(pixels * config.output_dims);
    std::memcpy(rgb.data(), staging.mapped(), bytes);
    return rgb;
}

} // namespace ff::engine::detail

namespace ff::engine {

std::vector<float> render(const Device& device, const Model& model, uint32_t width,
                          uint32_t height) {
    detail::CommandRunner runner(device.impl());
    detail::GpuModel gpu(device.impl(), runner, model);
    return detail::render_buffers(device.impl(), runner, model.config, gpu.mlp, gpu.grid, width,
                                  height);
}

} // namespace ff::engine
