#version 450
// Settles the lazy dense Adam (encoding_adam.glsl): every encoding cell takes the step its
// record's gradient belongs to (the step after its stamp; a zero gradient where no sample of that
// step read it, and in the form that visits this step's cells, always) and catches up the
// zero-gradient steps after it, up to pc.step steps in all, so the parameters and moments equal
// those of eager dense Adam. The Trainer runs it before anything reads them (render, model, state).
// Where training keeps the parameters in the records (ENC_PARAMS_IN_RECORD), it also copies every
// cell's parameters out to enc_params, which render and the host read; and with pc.count = 1 it
// does the reverse only, once, before the first step: enc_params into the records.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer EncodingParams { float enc_params[]; };
// The encoding's training state (encoding_state.glsl), as 16-byte words (whole records).
#ifndef ENC_STATE_BY_ADDRESS // else encoding_state.glsl reaches it by address
layout(std430, binding = 1) buffer EncodingStateQuads { vec4 enc_state4[]; };
#endif
layout(std430, binding = 2) readonly buffer EncodingCatchUp { vec4 enc_catch_up[]; };

#include "encoding_adam.glsl"
// The encoding's cell groups, for the fixed-point gradients' units (take_gradients).
#define ENC_PARAM(i) enc_params[i]
#include "encoding.glsl"

void main() {
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint cell = gl_GlobalInvocationID.x; cell < pc.cells; cell += stride) {
        EncRecord r = load_record(cell);
#if ENC_PARAMS_IN_RECORD
        if (pc.count == 1u) { // the records take their parameters
            store_cell(cell, load_cell_params(cell), r);
            continue;
        }
#endif
        EncCellParams q = cell_params(cell, r);
        const uint from = record_stamp(r);
        if (from < pc.step) {
            float grad[ENC_CELL_FEATURES];
            take_gradients(cell, r, grad);
            encoding_step_held(from, pc.step, grad, q, r);
            set_record_stamp(r, pc.step);
            store_cell(cell, q, r);
        }
#if ENC_PARAMS_IN_RECORD
        store_cell_params(cell, q);
#endif
    }
}
