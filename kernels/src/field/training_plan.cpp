#include "training_plan.hpp"
#include "adam_schedule.hpp"
#include "encodings/encoding.hpp"
#include "gpu_model.hpp"
#include "sampling.hpp"

#include <algorithm>
#include <bit>

namespace ff::engine::detail {

namespace {
// Whether dense Adam takes its lazy form: asked for, or (automatic) the cells outnumber what a step
// reads by the encoding's lazy_adam_ratio (on a CPU driver its lazy_adam_ratio_on_cpu, where
// given), so that a pass over every cell costs more than visiting the cells a step reads.
bool lazy_is_chosen(const TrainOptions& o, const EncodingDescriptor& encoding, const ModelConfig& config,
                    bool cpu_driver) {
    if (o.dense_adam != DenseAdam::automatic) return o.dense_adam == DenseAdam::lazy;
    const double ratio = cpu_driver && encoding.lazy_adam_ratio_on_cpu > 0 ? encoding.lazy_adam_ratio_on_cpu
                                                                           : encoding.lazy_adam_ratio;
    return double(encoding.cells(config)) >= ratio * double(o.batch) * encoding.cells_read(config);
}
} // namespace

std::vector<KernelRequest> TrainingPlan::requests() const {
    std::vector<KernelRequest> all = {train, optimizer, render, squared_error};
    if (settle) all.push_back(*settle);
    if (deferred) all.push_back(*deferred);
    return all;
}

TrainingPlan plan_training(const DeviceFeatures& device, const ModelConfig& config, const TrainOptions& options,
                           uint32_t width, uint32_t height, uint32_t source_bits) {
    TrainingPlan p;
    const MlpLayout L = mlp_layout(config);
    const KernelOverrides& o = options.kernels;
    p.tiling = train_tiling_for(device, config, options.batch, o);
    p.groups = persistent_groups(device, p.tiling, options.batch, L.total);
    choose_gradient_sums(device, config, p.tiling, options.batch, p.groups, std::nullopt, true, true, o);
    const EncodingDescriptor& encoding = encoding_of(config);
    const uint32_t cells = uint32_t(encoding.cells(config));
    p.grid_adam = options.grid_adam == GridAdam::sparse ? 0 : 1;
    if (p.grid_adam == 1 && cells > 0 && lazy_is_chosen(options, encoding, config, device.cpu)) {
        p.catch_up_sums = catch_up_sums(options, device.max_buffer_bytes / 4);
        if (!p.catch_up_sums.empty()) p.grid_adam = 2;
    }
    // Lazy dense Adam's optimizer visits the next step's cells, so that the step reads them
    // current (optimizer.comp; docs/engine.md says why this form and not another).
    const bool lazy = p.grid_adam == 2;
    // Per cell its gradient, Adam's moments and steps in one record (encoding_state.hpp), and its
    // parameters too where lazy dense Adam runs on an encoding that asks for it: only there, since
    // lazy Adam's visits ahead and its settle pass are what copy them out (optimizer.comp).
    p.state_layout = EncodingStateLayout{cells, uint32_t(encoding.cell_features(config)),
                                         lazy && encoding.parameters_in_records};
    p.state_layout.by_address = p.state_layout.bytes() > device.max_buffer_bytes; // encoding_state_buffer
    p.image = TargetImageLayout::of(device, width, height, source_bits);

    // Every kernel that draws the step's samples draws them alike.
    const Defines sampling = sampling_defines(config, options.batch, width, height, o);
    p.train = train_kernel_request(config, p.tiling, false, p.image);
    p.train.defines.insert(p.train.defines.end(), sampling.begin(), sampling.end());
    use_state_layout(p.train.defines, p.state_layout);
    // The fp16 weight copy of an MLP whose tensor-core kernels read their weights from memory.
    const bool fp16_copy = p.tiling.weights_in_memory();
    Defines optimizer = model_defines(config);
    optimizer.insert(optimizer.end(), sampling.begin(), sampling.end());
    optimizer.emplace_back("GRID_ADAM", std::to_string(p.grid_adam));
    optimizer.emplace_back("ENC_GRAD_FIXED", p.tiling.fixed_point_gradients ? "1" : "0");
    optimizer.emplace_back("MLP_FP16_COPY", fp16_copy ? "1" : "0");
    // Passed as a define, so that the dispatch and the kernel cannot disagree.
    p.optimizer_params_per_group = optimizer_params_per_group(L.total, device.multiprocessors);
    if (const std::optional<uint32_t> n = o.optimizer_params_per_group) {
        if (*n < 1 || *n > 256 || !std::has_single_bit(*n))
            throw EngineError("the kernel option optimizer_params_per_group " + std::to_string(*n) +
                              " must be a power of two from 1 to 256");
        p.optimizer_params_per_group = *n;
    }
    optimizer.emplace_back("PARAMS_PER_GROUP", std::to_string(p.optimizer_params_per_group));
    use_state_layout(optimizer, p.state_layout);
    // Invocations per sample where the optimizer finds a step's cells from its samples: one per
    // cell a sample reads, up to 16 (the hash grid's 64 cells then take 4 each).
    p.visit_parts = std::clamp(uint32_t(encoding.cells_read(config)), 1u, 16u);
    optimizer.emplace_back("VISIT_PARTS", std::to_string(p.visit_parts) + "u");
    // Visiting ahead, a visit reads a cell's record beside its claim or once it has won it, as the
    // encoding asks (optimizer.comp's step_claimed).
    const bool beside = o.read_beside_claim.value_or(encoding.visits_read_beside_claim);
    optimizer.emplace_back("ENC_READ_BESIDE_CLAIM", !lazy || beside ? "1" : "0");
    optimizer.emplace_back("VISIT_SLOTS",
                           std::to_string(std::max(1u, div_up(encoding.cells_read(config), p.visit_parts))) + "u");
    p.optimizer = {"optimizer.comp", optimizer, fp16_copy ? 11u : 10u};
    p.render = render_kernel_request(device, config, o);
    // The full-image error (Trainer::full_image_mse): the image's depth picks its sampling.
    Defines squared_error = model_defines(config);
    const uint32_t squared_error_bindings = p.image.add_defines(squared_error, 2); // after the band and the partials
    p.squared_error = {"squared_error.comp", squared_error, squared_error_bindings};
    if (lazy) {
        Defines settle = model_defines(config);
        settle.emplace_back("ENC_GRAD_FIXED", p.tiling.fixed_point_gradients ? "1" : "0");
        use_state_layout(settle, p.state_layout);
        p.settle = KernelRequest{"encoding_settle.comp", settle, 3};
    }
    if (p.tiling.deferred.groups) {
        p.deferred = deferred_sums_kernel_request(config, p.tiling, false);
        p.deferred->defines.insert(p.deferred->defines.end(), sampling.begin(), sampling.end());
        use_state_layout(p.deferred->defines, p.state_layout);
    }
    return p;
}

} // namespace ff::engine::detail
