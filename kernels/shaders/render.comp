#version 450
// Evaluates the field at every pixel centre of a width x height image in one dispatch:
// uv = ((x + 0.5) / width, (y + 0.5) / height), OUT_DIM floats per pixel, one invocation a pixel
// through the per-sample fp32 MLP (mlp.glsl). render_coopmat.comp is the same on the tensor cores.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer EncodingParams { float enc_params[]; };
layout(std430, binding = 2) writeonly buffer Output { float rgb[]; };

#define ENC_PARAM(i) enc_params[i]
#include "encoding.glsl"
#define MLP_W(i) mlp_params[i]
#include "mlp.glsl"

// One band of rows, [pc.first_row, pc.first_row + pc.count / pc.width): a large image renders in
// bands whose output each fits maxStorageBufferRange and one dispatch. p and rgb[] are band-local.
void main() {
    const uint p = gl_GlobalInvocationID.x;
    const bool inside = p < pc.count;
    if (!inside) return;
    uint q = inside ? p : 0u; // p here; render_coopmat.comp's form, where every invocation goes on
    uint px = q % pc.width, py = pc.first_row + q / pc.width;
    vec2 uv = (vec2(px, py) + 0.5) / vec2(pc.width, pc.height);
    float x[IN_PAD];
    encode(uv, x);
    for (int i = 0; i < IN_PAD; ++i) mlp_act[0][i] = x[i];
    mlp_forward();
    for (int o = 0; o < OUT_DIM; ++o) rgb[p * OUT_DIM + o] = mlp_out[o];
}
