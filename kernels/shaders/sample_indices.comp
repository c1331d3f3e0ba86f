#version 450
// Writes the pixel index each sample of a training step draws (training_pixel, as train_step.comp
// draws them), so tests can check the sampler.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "sampling.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) writeonly buffer Indices { uint indices[]; };

void main() {
    const uint s = gl_GlobalInvocationID.x;
    if (s >= pc.batch) return;
    indices[s] = training_pixel(pc.step, s);
}
