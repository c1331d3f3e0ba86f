// The encoding's training state on the device: one record per optimizer cell holding its gradient,
// Adam's m and v and the Adam steps it has taken. kernels/shaders/encoding_state.glsl is the same
// layout for the kernels (and says why a record rather than an array per quantity).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

namespace ff::engine::detail {

struct EncodingStateLayout {
    uint64_t cells = 0;    // optimizer cells
    uint32_t features = 0; // parameters per cell (ENC_CELL_FEATURES)
    // The cell's parameters in the record, after its gradient words (ENC_PARAMS_IN_RECORD: lazy
    // dense Adam visiting ahead, EncodingDescriptor::parameters_in_records).
    bool parameters = false;
    // The kernels reach the state by its device address (encoding_state.glsl's
    // ENC_STATE_BY_ADDRESS): it is larger than one storage buffer may be on the device.
    bool by_address = false;

    // Words per record: the gradients, the parameters if held, m and v (features words each), the
    // stamp, rounded up to 16 bytes.
    uint64_t record_words() const { return ((parameters ? 4 : 3) * uint64_t(features) + 1 + 3) / 4 * 4; }
    uint64_t grad(uint64_t cell, uint32_t f) const { return cell * record_words() + f; }
    uint64_t m(uint64_t cell, uint32_t f) const { return grad(cell, (parameters ? 2 : 1) * features + f); }
    uint64_t v(uint64_t cell, uint32_t f) const { return m(cell, features + f); }
    uint64_t stamp(uint64_t cell) const { return m(cell, 2 * features); }
    uint64_t words() const { return cells * record_words(); }
    uint64_t bytes() const { return 4 * std::max<uint64_t>(words(), 1); }
};

// The fixed-point gradient words (encoding_state.glsl's ENC_GRAD_FIXED) as the host reads them:
// units per unit of gradient for a cell of a group of `group_cells` cells, a step of `batch`
// samples of `outputs` channels (enc_grad_fixed_scale, in the same fp32 steps), and the two sums a
// pair of words holds (enc_grad_fixed_pair).
// The largest share of one sample a fixed-point sum takes whole (the shaders' ENC_GRAD_CLIP,
// passed in the model defines from here).
inline constexpr float kFixedPointGradientClip = 16.0f;
inline float fixed_point_gradient_units(uint64_t group_cells, uint32_t batch, uint32_t outputs) {
    const float m = float(std::min<uint64_t>(group_cells, batch));
    return m * (33554432.0f * float(outputs) / kFixedPointGradientClip);
}
inline std::pair<int32_t, int32_t> fixed_point_gradient_pair(uint32_t lo_word, uint32_t hi_word) {
    const int32_t lo = int32_t(lo_word);
    return {lo, int32_t(hi_word + (lo < 0 ? 1u : 0u))};
}

} // namespace ff::engine::detail
