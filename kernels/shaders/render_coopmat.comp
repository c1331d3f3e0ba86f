#version 450
// render.comp on the tensor cores: TILE pixels a workgroup through the tensor-core MLP
// (mlp_coopmat.glsl), 32 a subgroup. Every invocation takes part in the subgroup's products, so
// the pixels past the end evaluate pixel 0 and write nothing.
#extension GL_GOOGLE_include_directive : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shared_memory_block : require

#include "common.glsl"

layout(local_size_x = TILE) in;

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer EncodingParams { float enc_params[]; };
layout(std430, binding = 2) writeonly buffer Output { float rgb[]; };

#define ENC_PARAM(i) enc_params[i]
#include "encoding.glsl"
#include "mlp_coopmat.glsl"

// One band of rows, [pc.first_row, pc.first_row + pc.count / pc.width): a large image renders in
// bands whose output each fits maxStorageBufferRange and one dispatch. p and rgb[] are band-local.
void main() {
    const uint p = gl_GlobalInvocationID.x;
    const bool inside = p < pc.count;
    cm_load_weights();
    barrier();
    uint q = inside ? p : 0u;
    uint px = q % pc.width, py = pc.first_row + q / pc.width;
    vec2 uv = (vec2(px, py) + 0.5) / vec2(pc.width, pc.height);
    float x[IN_PAD];
    encode(uv, x);
    cm_put_input(x);
    cm_forward(); // this subgroup's 32 pixels
    if (inside)
        for (int o = 0; o < OUT_DIM; ++o) rgb[p * OUT_DIM + o] = cm_out[o];
}
