#version 450
// Evaluates the field at every pixel centre of a width x height image in one dispatch:
// uv = ((x + 0.5) / width, (y + 0.5) / height), OUT_DIM floats per pixel.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer GridParams { float grid_params[]; };
layout(std430, binding = 2) writeonly buffer Output { float rgb[]; };

#define MLP_W(i) mlp_params[i]
#define ENC_PARAM(i) grid_params[i]
#include "encoding.glsl"
#include "mlp.glsl"

void main() {
    const uint p = gl_GlobalInvocationID.x;
    if (p >= pc.width * pc.height) return;
    uint px = p % pc.width, py = p / pc.width;
    vec2 uv = (vec2(px, py) + 0.5) / vec2(pc.width, pc.height);
    float x[IN_PAD];
    encode(uv, x);
    for (int i = 0; i < IN_PAD; ++i) mlp_act[0][i] = x[i];
    mlp_forward();
    for (int o = 0; o < OUT_DIM; ++o) rgb[p * OUT_DIM + o] = mlp_out[o];
}
