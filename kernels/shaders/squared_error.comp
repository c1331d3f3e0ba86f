#version 450
// Squared error of one rendered band against the training image, summed per workgroup: the
// full-image PSNR the Train node logs, without reading a large render back to the host. Partials
// are fp32 sums of 768 values; the host adds them in double.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Render { float rgb[]; };      // the band, 3 floats a pixel
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };
#include "target_image.glsl" // the trainer's target, from binding 2 (IMAGE_BINDING)

shared float s_sum[256];

void main() {
    const uint p = gl_GlobalInvocationID.x, tid = gl_LocalInvocationID.x;
    float e = 0.0;
    if (p < pc.count) {
        const uint pixel = pc.first_row * pc.width + p;
        const vec3 d = vec3(rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]) - target_rgb(pixel);
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
