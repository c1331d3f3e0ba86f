// The training samples: sample s of step `step` is one pixel drawn by the counter-based RNG, taken
// at its centre. Shared by train_step.comp (which trains on them), optimizer.comp (which readies
// the encoding cells the next step will read) and sample_indices.comp (tests).
#ifndef FF_SAMPLING_GLSL
#define FF_SAMPLING_GLSL

#include "rng.glsl"

uint training_pixel(uint step, uint s) {
    return rng_index(pc.seed_lo, pc.seed_hi, step, s, pc.width * pc.height);
}

vec2 pixel_uv(uint pixel) {
    const uint px = pixel % pc.width, py = pixel / pc.width;
    return (vec2(px, py) + 0.5) / vec2(pc.width, pc.height);
}

#endif
