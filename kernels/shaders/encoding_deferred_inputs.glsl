// The deferred sums' inputs (the host's TrainTiling::deferred): the input gradients of the
// encoding's leading groups, sample by sample, which train_step.comp writes and
// encoding_deferred_sums.comp reads back. Word w of sample s lies at w * batch + s, so that a
// subgroup's stores fill whole lines. The including kernel binds them as `enc_deferred` (uints).
//
// The inputs are stored two to a 32-bit word, as fp16 (packHalf2x16), in units of
// LOSS_SCALE / FP16_DELTA_SCALE. The buffer is the one training buffer that grows with the batch,
// and as floats it is most of the hash model's trainer memory at the largest batches
// (bench/archive/RESULTS.md, "the deferred sums' inputs as fp16").
// The tensor-core kernels' input gradients are fp16 values in those very units (common.glsl), so
// there the pass reads back exactly what the step had; the portable kernels' fp32 gradients round
// to a part in 2^11, below what the fixed-point shares round themselves (encoding_state.glsl: a
// coarse level's share is tens to thousands of units, rounded to one).
#define ENC_DEFERRED_WORDS ((ENC_DEFERRED_INPUTS + 1) / 2)
// The units, and the largest magnitude kept in them: under fp16's largest finite value, so that a
// runaway gradient (over 500 LOSS_SCALE) is clipped, as its fixed-point share would be, rather than
// stored as infinity.
#define ENC_DEFERRED_UNIT (LOSS_SCALE / FP16_DELTA_SCALE)
const float kDeferredHalfMax = 65000.0;

#ifdef ENC_DEFERRED_STORES
void enc_deferred_store(uint s, float dx[ENC_GRAD_DIM]) {
    [[unroll]] for (int w = 0; w < ENC_DEFERRED_WORDS; ++w) {
        const float second = 2 * w + 1 < ENC_DEFERRED_INPUTS ? dx[min(2 * w + 1, ENC_GRAD_DIM - 1)] : 0.0;
        const vec2 pair = clamp(vec2(dx[2 * w], second) / ENC_DEFERRED_UNIT, -kDeferredHalfMax, kDeferredHalfMax);
        enc_deferred[uint(w) * pc.batch + s] = packHalf2x16(pair);
    }
}
#endif

// Input d of sample s.
float enc_deferred_input(uint s, int d) {
    const vec2 pair = unpackHalf2x16(enc_deferred[uint(d / 2) * pc.batch + s]);
    return ((d & 1) == 0 ? pair.x : pair.y) * ENC_DEFERRED_UNIT;
}
