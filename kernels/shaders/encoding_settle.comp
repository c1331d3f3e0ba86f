#version 450
// Settles the lazy dense Adam (encoding_adam.glsl): every encoding cell catches up the
// zero-gradient steps it skipped, up to pc.step steps in all, so the parameters and moments equal
// those of eager dense Adam. The Trainer runs it before anything reads them (render, model, state).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common.glsl"

#define ENCODING_ADAM_LAZY
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer EncodingParams { float enc_params[]; };
// The encoding's training state (encoding_state.glsl), as 16-byte words (whole records).
layout(std430, binding = 1) buffer EncodingStateQuads { vec4 enc_state4[]; };
layout(std430, binding = 2) readonly buffer EncodingCatchUp { vec4 enc_catch_up[]; };

#include "encoding_adam.glsl"

void main() {
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint cell = gl_GlobalInvocationID.x; cell < pc.cells; cell += stride) {
        EncRecord r = load_record(cell);
        EncCellParams q = load_cell_params(cell);
        encoding_catch_up(record_stamp(r), pc.step, q, r);
        set_record_stamp(r, pc.step);
        store_record(cell, r);
        store_cell_params(cell, q);
    }
}
