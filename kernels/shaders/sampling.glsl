// The training samples: sample s of step `step` is one pixel, taken at its centre. Shared by
// train_step.comp (which trains on them), optimizer.comp (which readies the encoding cells the
// next step will read), encoding_deferred_sums.comp (which reads their inputs again) and
// sample_indices.comp (tests).
//
// Stratified: the image's pixels in row-major order are one line of width * height units, cut
// into `batch` equal strata; each sample draws one point of its own stratum (the counter-based
// RNG) and takes the pixel under it. Every pixel is as likely as with independent draws, and a
// step's samples cover the image in proportion: a region of n pixels holds n * batch / pixels of
// them, give or take two (independent draws give or take their square root).
//
// Sample s takes stratum `sample_stratum(s)`: the batch in blocks of 2^SAMPLES_BLOCK_SHIFT
// samples, each block's strata dealt out column-wise to its 32-sample rows, so that the 32
// samples a subgroup takes at once lie in one block's stretch of the image, 2^(shift - 5) strata
// apart. The host picks the shift (sampling.cpp) so that they are a few encoding cells apart:
// close enough that a workgroup's reads and gradient atomics reuse the same cache lines, far
// enough that a subgroup's lanes do not add to the same cells at once. A large batch's step is
// bound by its requests through the L2 cache, which that locality cuts (bench/archive/RESULTS.md,
// "the step's samples stratified").
#include "rng.glsl"

#if defined(SAMPLES_BLOCK_SHIFT) // 5..30: sampling_defines refuses any other

// The stratum of sample s: within each whole block, row r's lane l takes stratum
// l * rows + r; samples past the last whole block keep their own index.
uint sample_stratum(uint s) {
    const uint block = 1u << SAMPLES_BLOCK_SHIFT;
    if (s >= (pc.batch & ~(block - 1u))) return s;
    const uint i = s & (block - 1u);
    return (s & ~(block - 1u)) | ((i & 31u) << (SAMPLES_BLOCK_SHIFT - 5)) | (i >> 5u);
}

// floor((hi * 2^32 + lo) / batch) for hi < batch (the quotient fits 32 bits), in 32-bit
// operations (the device need not have 64-bit integers): a batch of 2^SAMPLES_BATCH_LOG2 by
// shifts, any other bit by bit (a loop that, merely compiled in beside the shifts, made the lake
// model's 2^20 step 3% slower on the H200).
uint divide_by_batch(uint hi, uint lo) {
#ifdef SAMPLES_BATCH_LOG2
    return SAMPLES_BATCH_LOG2 == 0 ? lo : (hi << (32 - SAMPLES_BATCH_LOG2)) | (lo >> SAMPLES_BATCH_LOG2);
#else
    const uint d = pc.batch;
    for (int bit = 0; bit < 32; ++bit) {
        const bool top = hi >= 0x80000000u;
        hi = (hi << 1u) | (lo >> 31u);
        lo <<= 1u;
        if (top || hi >= d) {
            hi -= d;
            lo |= 1u;
        }
    }
    return lo;
#endif
}

uint training_pixel(uint step, uint s) {
    const uint pixels = pc.width * pc.height;
    // The point: stratum * pixels + a uniform offset in [0, pixels), on a line of batch * pixels
    // units; the pixel under it is that over batch.
    const uint offset = rng_index(pc.seed_lo, pc.seed_hi, step, s, pixels);
    uint hi, lo;
    umulExtended(sample_stratum(s), pixels, hi, lo);
    uint carry;
    lo = uaddCarry(lo, offset, carry);
    return divide_by_batch(hi + carry, lo);
}
#endif

// The uv of the pixel in column px, row py (pixel centres; train_step.comp's staged pixels too).
#define COLUMN_ROW_UV(px, py) ((vec2(px, py) + 0.5) / vec2(pc.width, pc.height))

vec2 pixel_uv(uint pixel) {
    const uint px = pixel % pc.width, py = pixel / pc.width;
    return COLUMN_ROW_UV(px, py);
}
