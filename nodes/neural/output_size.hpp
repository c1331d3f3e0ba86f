// Infer's output size rule: explicit width/height, a scale of the training size, or the training
// size itself.
#pragma once

#include <cstdint>

namespace ff::neural {

// The engine's pixel indices are 32-bit; host memory for the output (12 bytes a pixel as floats) is
// checked when it is allocated, with an error naming the size.
inline constexpr uint64_t kMaxRenderPixels = uint64_t(1) << 31; // 2.1 G pixels

struct OutputSize {
    uint32_t width = 0;
    uint32_t height = 0;
};

// width/height: 0 = not given. Both given: that size. One given: the other follows the training
// image's aspect ratio (rounded, at least 1). scale > 0 (with neither given): the training size
// times scale, rounded, at least 1. Nothing given: the training size. Throws ff::ParamError for
// scale combined with width/height, and for sizes above kMaxRenderPixels or 65536 a side.
OutputSize infer_output_size(int64_t width, int64_t height, double scale, uint32_t train_width,
                             uint32_t train_height);

// width x height scaled down (never up) so that its longest side is at most `longest`, keeping
// the aspect ratio (rounded, at least 1 a side); longest = 0: unchanged.
OutputSize fit_within(uint32_t width, uint32_t height, uint32_t longest);

} // namespace ff::neural
