// How a training step orders its samples over the image (sampling.hpp, kernels/shaders/sampling.glsl).
#include "sampling.hpp"
#include "encodings/encoding.hpp"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ff::engine::detail {

namespace {
// How many encoding cells apart along a row the 32 samples a subgroup takes at once should lie.
// The lake model on leuvenA (H200, late us/step at 2^20 / 2^18 with the blocks' log2 n): samples
// 0.8 cells apart 215.6 / -, 1.6 cells 221.7 / -, 3.2 cells 202.7 / 59.8, 6.5 cells 208.6 / 61.2,
// 13 cells 210.0 / 61.5, and with independent draws 223.8 / 65.1 (bench/archive/RESULTS.md, "the
// step's samples stratified").
// Closer, a subgroup's lanes add to the same cells at once; farther, fewer of a workgroup's reads
// and atomics meet in the cache.
constexpr double kSampleSpacingCells = 3.0;
constexpr uint32_t kLaneShift = 5;  // 32 samples a row of a block
constexpr uint32_t kMaxShift = 30;
} // namespace

uint32_t sample_block_shift(uint32_t batch, uint32_t width, uint32_t height, uint32_t cells_across) {
    const double pixels = double(width) * double(height);
    if (cells_across == 0 || batch == 0 || pixels == 0) return kLaneShift;
    // Neighbouring strata of one row of a block lie pixels / batch apart; a cell is
    // width / cells_across pixels wide.
    const double strata = kSampleSpacingCells * (double(width) / cells_across) * double(batch) / pixels;
    if (strata <= 1.0) return kLaneShift;
    const uint32_t wanted = uint32_t(std::ceil(std::log2(strata)));
    return std::min(kLaneShift + wanted, kMaxShift);
}

Defines sampling_defines(const ModelConfig& config, uint32_t batch, uint32_t width, uint32_t height,
                         const KernelOverrides& o) {
    // A pixel's column and row fit 16 bits each (train_step.comp's staged pixels).
    const bool xy16 = width <= 65536 && height <= 65536 && o.samples_xy16.value_or(true);
    const EncodingDescriptor& encoding = encoding_of(config);
    uint32_t shift = sample_block_shift(batch, width, height, encoding.cells_across ? encoding.cells_across(config) : 0);
    if (o.samples_block) {
        if (*o.samples_block < kLaneShift || *o.samples_block > kMaxShift)
            throw EngineError("the kernel option samples_block " + std::to_string(*o.samples_block) + " must be " +
                              std::to_string(kLaneShift) + ".." + std::to_string(kMaxShift));
        shift = *o.samples_block;
    }
    Defines d = {{"SAMPLES_BLOCK_SHIFT", std::to_string(shift)}};
    if (batch && std::has_single_bit(batch)) d.push_back({"SAMPLES_BATCH_LOG2", std::to_string(std::countr_zero(batch))});
    if (xy16) d.push_back({"SAMPLES_XY16", "1"});
    return d;
}

} // namespace ff::engine::detail
