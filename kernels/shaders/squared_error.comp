#version 450
// Squared error of one rendered band against the training image, summed per workgroup: the
// full-image PSNR the Train node logs, without reading a large render back to the host. Partials
// are fp32 sums of 768 values; the host adds them in double.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Render { float rgb[]; };      // the band, 3 floats a pixel
// RGBA8 (one uint a pixel), or RGBA16 (two: RG, BA): the trainer's target (train_step.comp)
layout(std430, binding = 1) readonly buffer Image { uint image_rgba[]; };
layout(std430, binding = 2) writeonly buffer Partials { float partials[]; };

shared float s_sum[256];

void main() {
    const uint p = gl_GlobalInvocationID.x, tid = gl_LocalInvocationID.x;
    float e = 0.0;
    if (p < pc.count) {
        const uint pixel = pc.first_row * pc.width + p;
#ifdef IMAGE_RGBA16
        const vec2 rg = unpackUnorm2x16(image_rgba[2 * pixel]), ba = unpackUnorm2x16(image_rgba[2 * pixel + 1]);
        const vec3 target = vec3(rg, ba.x);
#else
        const vec3 target = unpackUnorm4x8(image_rgba[pixel]).rgb;
#endif
        const vec3 d = vec3(rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]) - target;
        e = dot(d, d);
    }
    s_sum[tid] = e;
    barrier();
    for (uint stride = 128u; stride > 0u; stride >>= 1) {
        if (tid < stride) s_sum[tid] += s_sum[tid + stride];
        barrier();
    }
    if (tid == 0u) partials[gl_WorkGroupID.x] = s_sum[0];
}
