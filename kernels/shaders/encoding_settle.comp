#version 450
// Settles the lazy dense Adam (encoding_adam.glsl): every encoding cell takes the step its
// record's gradient belongs to (the step after its stamp; a zero gradient where no sample of that
// step read it, and in the form that visits this step's cells, always) and catches up the
// zero-gradient steps after it, up to pc.step steps in all, so the parameters and moments equal
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
// The encoding's cell groups, for the fixed-point gradients' units (take_gradients).
#define ENC_PARAM(i) enc_params[i]
#include "encoding.glsl"

void main() {
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint cell = gl_GlobalInvocationID.x; cell < pc.cells; cell += stride) {
        EncRecord r = load_record(cell);
        const uint from = record_stamp(r);
        if (from >= pc.step) continue;
        EncCellParams q = load_cell_params(cell);
        float grad[ENC_CELL_FEATURES];
        take_gradients(cell, r, grad);
        encoding_step_held(from, pc.step, grad, q, r);
        set_record_stamp(r, pc.step);
        store_record(cell, r);
        store_cell_params(cell, q);
    }
}
