#include "fieldflow/engine/testing.hpp"

#include "field/gpu_model.hpp"
#include "field/encoding_state.hpp"
#include "encodings/encoding.hpp"
#include "field/sampling.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace ff::engine::testing {

using namespace detail;

Tiling train_tiling(const Device& device, const ModelConfig& config, const KernelOverrides& kernels) {
    TrainTiling t = train_tiling_for(device.impl().features(), config, 0, kernels);
    return {t.tile, t.weights_in_shared};
}

namespace {
// The training kernel's layout and workgroups for `samples` explicit samples, as forward_backward
// runs them: at most max_groups workgroups (0: no cap), its gradient sums chosen for those.
struct ExplicitRun {
    TrainTiling tiling;
    uint32_t groups = 0;
};
ExplicitRun explicit_run(DeviceImpl& dev, const ModelConfig& c, uint32_t samples, uint32_t max_groups,
                         const GradientSums& sums, const KernelOverrides& kernels) {
    ExplicitRun run{train_tiling_for(dev.features(), c, samples, kernels)};
    run.groups = persistent_groups(dev.features(), run.tiling, samples, mlp_layout(c).total);
    if (max_groups) run.groups = std::min(run.groups, max_groups);
    choose_gradient_sums(dev.features(), c, run.tiling, samples, run.groups, sums.min_hits, sums.local, sums.deferred,
                         kernels);
    return run;
}
} // namespace

ForwardBackward forward_backward(const Device& device, const Model& model,
                                 const std::vector<float>& uv, const std::vector<float>& targets,
                                 uint32_t max_groups, GradientSums sums, const KernelOverrides& kernels) {
    DeviceImpl& dev = device.impl();
    const ModelConfig& c = model.config;
    uint32_t n = uint32_t(uv.size() / 2);
    if (n == 0 || uv.size() != size_t(n) * 2 || targets.size() != size_t(n) * c.output_dims)
        throw EngineError("forward_backward: need 2 uv floats and output_dims targets per sample");
    CommandRunner runner(dev);
    GpuModel gpu(dev, runner, model, n, kernels);
    const auto [tiling, groups] = explicit_run(dev, c, n, max_groups, sums, kernels);
    const detail::EncodingDescriptor& encoding = encoding_of(c);
    const size_t cells = size_t(encoding.cells(c)), params = size_t(encoding.parameter_count(c));
    auto local = [&](size_t bytes, const char* name) {
        return Buffer(dev, bytes, MemoryKind::device_local, name);
    };
    EncodingStateLayout state_layout{cells, uint32_t(encoding.cell_features(c))};
    Buffer state = encoding_state_buffer(dev, state_layout);
    const uint32_t rows = partial_rows(tiling, groups); // of gradient partials, and of loss partials
    Buffer partials = local(size_t(rows) * gpu.layout.total * 4, "MLP gradient partials");
    Buffer loss_partials = local(rows * 4, "loss partials");
    Buffer uv_buf = local(uv.size() * 4, "sample uv");
    Buffer target_buf = local(targets.size() * 4, "sample targets");
    Buffer out_buf = local(targets.size() * 4, "sample outputs");
    upload(dev, runner, uv_buf, uv.data(), uv.size() * 4);
    upload(dev, runner, target_buf, targets.data(), targets.size() * 4);
    fill_zero(runner, {&state, &partials, &loss_partials, &out_buf});
    Buffer deferred; // the deferred sums' inputs (TrainTiling::deferred)
    if (tiling.deferred.groups) deferred = local(tiling.deferred.input_bytes(n), "deferred encoding gradients");

    KernelRequest train_request = train_kernel_request(c, tiling, true);
    use_state_layout(train_request.defines, state_layout);
    const Kernel& k = dev.kernel(train_request);
    std::vector<const Buffer*> buffers =
        gpu.bindings(tiling, {&state, &state, &partials, &loss_partials, &uv_buf, &target_buf, &out_buf});
    if (tiling.deferred.groups) buffers.push_back(&deferred);
    DescriptorSet set(dev, k, buffers);
    DescriptorSet deferred_set;
    if (tiling.deferred.groups) {
        KernelRequest deferred_request = deferred_sums_kernel_request(c, tiling, true);
        use_state_layout(deferred_request.defines, state_layout);
        deferred_set = DescriptorSet(dev, dev.kernel(deferred_request), {&state, &state, &deferred, &uv_buf});
    }
    PushConstants pc;
    pc.grid_w = c.grid_width;
    pc.grid_h = c.grid_height;
    pc.batch = n;
    pc.cells = uint32_t(cells);
    runner.run([&](VkCommandBuffer cb) {
        compute_barrier(cb);
        record_train_dispatches(cb, dev, set, pc, tiling, groups);
        record_deferred_sums(cb, deferred_set, pc, tiling);
    });

    ForwardBackward r;
    r.outputs.resize(targets.size());
    download(dev, runner, out_buf, r.outputs.data(), r.outputs.size() * 4);
    r.grad_encoding.resize(params);
    std::vector<float> records(cells * state_layout.record_words());
    if (!records.empty()) download(dev, runner, state, records.data(), records.size() * 4);
    for (size_t cell = 0; cell < cells; ++cell) {
        const uint32_t features = state_layout.features;
        float* grad = &r.grad_encoding[cell * features];
        if (!tiling.fixed_point_gradients) {
            for (uint32_t f = 0; f < features; ++f) grad[f] = records[state_layout.grad(cell, f)];
            continue;
        }
        // Fixed-point sums: read back as the optimizer does (optimizer.comp's take_gradients).
        auto word = [&](uint32_t f) { return std::bit_cast<uint32_t>(records[state_layout.grad(cell, f)]); };
        const double unit = 1.0 / fixed_point_gradient_units(encoding.group_cells(c, cell), n, c.output_dims);
        for (uint32_t f = 0; f + 1 < features; f += 2) {
            const auto [lo, hi] = fixed_point_gradient_pair(word(f), word(f + 1));
            grad[f] = float(lo * unit);
            grad[f + 1] = float(hi * unit);
        }
        if (features % 2 == 1) grad[features - 1] = float(int32_t(word(features - 1)) * unit);
    }
    std::vector<float> part(size_t(rows) * gpu.layout.total), lp(rows);
    download(dev, runner, partials, part.data(), part.size() * 4);
    download(dev, runner, loss_partials, lp.data(), lp.size() * 4);
    std::vector<double> sum(gpu.layout.total, 0.0);
    for (uint32_t row = 0; row < rows; ++row)
        for (size_t p = 0; p < sum.size(); ++p) sum[p] += part[row * sum.size() + p];
    r.grad_mlp.assign(sum.begin(), sum.end());
    double loss = 0;
    for (float v : lp) loss += v;
    r.loss = loss / (double(n) * c.output_dims);
    return r;
}

SummedCells gradient_sum_cells(const Device& device, const Model& model, uint32_t samples, uint32_t max_groups,
                               GradientSums sums, const KernelOverrides& kernels) {
    const TrainTiling t = explicit_run(device.impl(), model.config, samples, max_groups, sums, kernels).tiling;
    return {t.local_gradient_cells, t.deferred.cells, t.deferred.groups ? t.deferred.sets : 0u};
}

std::vector<uint32_t> sample_indices(const Device& device, const ModelConfig& config, uint64_t seed, uint32_t step,
                                     uint32_t batch, uint32_t width, uint32_t height,
                                     const KernelOverrides& kernels) {
    DeviceImpl& dev = device.impl();
    CommandRunner runner(dev);
    Defines defines = model_defines(config);
    const Defines sampling = sampling_defines(config, batch, width, height, kernels);
    defines.insert(defines.end(), sampling.begin(), sampling.end());
    const Kernel& k = dev.kernel("sample_indices.comp", defines, 1);
    Buffer out(dev, size_t(batch) * 4, MemoryKind::device_local, "sample indices");
    DescriptorSet set(dev, k, {&out});
    PushConstants pc;
    pc.width = width;
    pc.height = height;
    pc.batch = batch;
    pc.step = step;
    pc.seed_lo = uint32_t(seed);
    pc.seed_hi = uint32_t(seed >> 32);
    runner.run([&](VkCommandBuffer cb) { set.dispatch(cb, pc, div_up(batch, 64)); });
    std::vector<uint32_t> idx(batch);
    download(dev, runner, out, idx.data(), idx.size() * 4);
    return idx;
}

std::vector<double> reference_encode(const ModelConfig& config, const std::vector<double>& params,
                                     double u, double v) {
    std::vector<double> x;
    encoding_of(config).reference_encode(config, params, u, v, x);
    return x;
}

void reference_encode_backward(const ModelConfig& config, double u, double v,
                               const std::vector<double>& dx, std::vector<double>& dparams) {
    encoding_of(config).reference_backward(config, u, v, dx, dparams);
}

uint32_t encoding_gradient_inputs(const ModelConfig& config) {
    return encoding_of(config).gradient_inputs(config);
}

} // namespace ff::engine::testing
