// The device memory of a training run, from the same sizes the Trainer allocates (trainer.cpp):
// estimated from the configuration alone, so that a run too large for the device is refused before
// its first allocation. tests/engine checks the estimate against what a Trainer then holds.
#include "adam_schedule.hpp"
#include "encoding_state.hpp"
#include "encodings/encoding.hpp"
#include "gpu_model.hpp"
#include "target_image.hpp"
#include "vulkan/size_text.hpp"

#include <cstdio>

namespace ff::engine {

using namespace detail;

std::string MemoryEstimate::text() const {
    std::string out = size_text(total) + " (";
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i].first + " " + size_text(parts[i].second);
    return out + ")";
}

MemoryEstimate estimate_training_memory(const Device& device, const ModelConfig& config, const TrainOptions& options,
                                        uint32_t width, uint32_t height, uint32_t source_bits) {
    require_valid(config);
    DeviceImpl& dev = device.impl();
    const EncodingDescriptor& encoding = encoding_of(config);
    const MlpLayout L = mlp_layout(config);
    TrainTiling tiling = train_tiling_for(dev.features(), config, options.batch, options.kernels);
    const uint32_t groups = persistent_groups(dev.features(), tiling, options.batch, L.total);
    choose_gradient_sums(dev.features(), config, tiling, options.batch, groups, std::nullopt, true, true,
                         options.kernels);
    const uint64_t cells = encoding.cells(config), floats = encoding.parameter_count(config);

    MemoryEstimate e;
    e.parts.emplace_back("image", TargetImageLayout::of(dev.features(), width, height, source_bits).bytes());
    // Parameters; the training state (each cell's gradient, Adam's moments and steps, and the
    // parameters where the encoding keeps them there under lazy Adam); the lazy form's catch-up
    // table (its largest size). Both as the lazy form would have them, whichever form runs.
    const EncodingStateLayout state{cells, uint32_t(encoding.cell_features(config)), encoding.parameters_in_records};
    // The deferred sums' inputs (TrainTiling::deferred).
    e.parts.emplace_back("encoding", 4 * (floats + catch_up_table_floats(options)) + state.bytes() +
                                         tiling.deferred.input_bytes(options.batch));
    // Parameters, Adam's m and v, the gradient partial rows, the loss partials; the fp16 weight
    // copy of tensor-core kernels that read their weights from memory.
    const uint64_t fp16_copy = tiling.weights_in_memory() ? 2 * uint64_t(L.total) : 0;
    const uint64_t rows = partial_rows(tiling, groups);
    e.parts.emplace_back("MLP", 4 * uint64_t(L.total) * (3 + rows) + 4 * rows + fp16_copy);
    // The evaluation's render band and the error partials (one float a 256 pixels of a band, on
    // the device and read back); the snapshots' band and its read-back.
    const uint64_t band_rows = render_band_rows(dev.features(), config, width, height, options.kernels);
    const uint64_t band = band_rows * width * config.output_dims * 4;
    e.parts.emplace_back("renders", 3 * band + 2 * 4 * ((band_rows * width + 255) / 256));
    e.parts.emplace_back("loss log", 2 * 4 * uint64_t(PipelinedRunner::kSlots) * kTrainerStepsPerSubmit);
    for (const auto& [name, bytes] : e.parts) e.total += bytes;
    e.device_memory = dev.info().memory_bytes;
    e.held = dev.allocated_bytes();
    return e;
}

void require_fits(const MemoryEstimate& e, const std::string& device_name) {
    if (e.device_memory == 0) return; // the driver reports no device-local heap: nothing to compare
    const uint64_t free = e.device_memory > e.held ? e.device_memory - e.held : 0;
    if (e.total <= free) return;
    throw EngineError("training needs about " + e.text() + " of device memory, more than the " + size_text(free) +
                      " free on '" + device_name + "' (" + size_text(e.device_memory) + " in all, " + size_text(e.held) +
                      " held by this process); use a smaller image, batch or model");
}

} // namespace ff::engine
