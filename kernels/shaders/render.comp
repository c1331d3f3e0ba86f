#version 450
// Evaluates the field at every pixel centre of a width x height image in one dispatch:
// uv = ((x + 0.5) / width, (y + 0.5) / height), OUT_DIM floats per pixel.
// COOPMAT=1: TILE pixels per workgroup through the tensor-core MLP (mlp_coopmat.glsl), 32 per subgroup.
#extension GL_GOOGLE_include_directive : require
#if COOPMAT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#if defined(CM_SHARED_BLOCKS) && CM_SHARED_BLOCKS
#extension GL_EXT_shared_memory_block : require
#endif
#endif

#include "common.glsl"

#if COOPMAT
layout(local_size_x = TILE) in;
#else
layout(local_size_x = 64) in;
#endif

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer EncodingParams { float enc_params[]; };
layout(std430, binding = 2) writeonly buffer Output { float rgb[]; };

#define ENC_PARAM(i) enc_params[i]
#include "encoding.glsl"
#if COOPMAT
#include "mlp_coopmat.glsl"
#else
#define MLP_W(i) mlp_params[i]
#include "mlp.glsl"
#endif

// One band of rows, [pc.first_row, pc.first_row + pc.count / pc.width): a large image renders in
// bands whose output each fits maxStorageBufferRange and one dispatch. p and rgb[] are band-local.
void main() {
    const uint p = gl_GlobalInvocationID.x;
    const bool inside = p < pc.count;
#if COOPMAT
    cm_load_weights();
    barrier();
#else
    if (!inside) return;
#endif
    uint q = inside ? p : 0u; // pixels past the end evaluate pixel 0 and write nothing
    uint px = q % pc.width, py = pc.first_row + q / pc.width;
    vec2 uv = (vec2(px, py) + 0.5) / vec2(pc.width, pc.height);
    float x[IN_PAD];
    encode(uv, x);
#if COOPMAT
    cm_put_input(x);
    cm_forward(); // this subgroup's 32 pixels
    if (inside)
        for (int o = 0; o < OUT_DIM; ++o) rgb[p * OUT_DIM + o] = cm_out[o];
#else
    for (int i = 0; i < IN_PAD; ++i) mlp_act[0][i] = x[i];
    mlp_forward();
    for (int o = 0; o < OUT_DIM; ++o) rgb[p * OUT_DIM + o] = mlp_out[o];
#endif
}
