// How a training step orders its samples over the image (kernels/shaders/sampling.glsl): the
// defines every kernel that draws them is built with, so that all of them draw the same pixels.
#pragma once

#include "fieldflow/engine/engine.hpp"
#include "vulkan/shader_compiler.hpp"

#include <cstdint>

namespace ff::engine::detail {

// log2 of the blocks whose strata sampling.glsl deals out column-wise to a subgroup's 32 samples:
// the smallest (at least 32 samples) that puts those samples kSampleSpacingCells encoding cells
// apart along the image's rows, for `batch` samples of a width x height image and an encoding of
// `cells_across` cells across its width (0: no cells, the blocks of 32 then keep the samples in
// their order).
uint32_t sample_block_shift(uint32_t batch, uint32_t width, uint32_t height, uint32_t cells_across);

// sampling.glsl's defines for training `config` on `batch` samples of a width x height image
// (KernelOverrides::samples_block and samples_xy16 fix them for measurements).
Defines sampling_defines(const ModelConfig& config, uint32_t batch, uint32_t width, uint32_t height,
                         const KernelOverrides& overrides = {});

} // namespace ff::engine::detail
