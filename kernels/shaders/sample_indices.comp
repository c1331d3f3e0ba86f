#version 450
// Writes the pixel index each sample of a training step draws (same function as train_step.comp),
// so tests can check the sampler.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "rng.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) writeonly buffer Indices { uint indices[]; };

void main() {
    const uint s = gl_GlobalInvocationID.x;
    if (s >= pc.batch) return;
    indices[s] = rng_index(pc.seed_lo, pc.seed_hi, pc.step, s, pc.width * pc.height);
}
