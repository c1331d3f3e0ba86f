// The training samples: sample s of step `step` is one pixel drawn by the counter-based RNG, taken
// at its centre. Shared by train_step.comp (which trains on them), optimizer.comp (which readies
// the encoding cells the next step will read) and sample_indices.comp (tests).
//
// SAMPLE_BLOCKS=0 (pixels): every sample is a pixel drawn on its own.
// SAMPLE_BLOCKS=1 (blocks): samples come in blocks of 32, an 8x4 block of neighbouring pixels at a
//   uniform random position, wrapping around the image's edges so that every pixel is still drawn
//   with the same probability. A block is one subgroup's tile: its image reads share cache lines
//   and its gradient scatters share encoding cells, which on a large image (one that does not fit
//   the cache) is most of a step's cost (Trainer, TrainOptions::sampling).
#ifndef FF_SAMPLING_GLSL
#define FF_SAMPLING_GLSL

#include "rng.glsl"

#ifndef SAMPLE_BLOCKS
#define SAMPLE_BLOCKS 0
#endif
#ifndef SAMPLE_BLOCK_W
#define SAMPLE_BLOCK_W 8u
#define SAMPLE_BLOCK_H 4u
#endif
#define SAMPLE_BLOCK (SAMPLE_BLOCK_W * SAMPLE_BLOCK_H)

uint training_pixel(uint step, uint s) {
#if SAMPLE_BLOCKS
    const uint block = s / SAMPLE_BLOCK, j = s % SAMPLE_BLOCK;
    const uvec4 h = rng_hash4(uvec4(block, step, pc.seed_lo, pc.seed_hi ^ 0x7F4A7C15u));
    uint x0, y0, lo;
    umulExtended(h.x ^ (h.z >> 7u), pc.width, x0, lo);
    umulExtended(h.y ^ (h.w >> 7u), pc.height, y0, lo);
    const uint x = (x0 + j % SAMPLE_BLOCK_W) % pc.width, y = (y0 + j / SAMPLE_BLOCK_W) % pc.height;
    return y * pc.width + x;
#else
    return rng_index(pc.seed_lo, pc.seed_hi, step, s, pc.width * pc.height);
#endif
}

vec2 pixel_uv(uint pixel) {
    const uint px = pixel % pc.width, py = pixel / pc.width;
    return (vec2(px, py) + 0.5) / vec2(pc.width, pc.height);
}

#endif
