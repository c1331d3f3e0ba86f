#version 450
// Settles the lazy dense Adam (encoding_adam.glsl): every encoding cell catches up the
// zero-gradient steps it skipped, up to pc.step steps in all, so the parameters and moments equal
// those of eager dense Adam. The Trainer runs it before anything reads them (render, model, state).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

#define ENCODING_ADAM_LAZY
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer EncodingParams { float enc_params[]; };
layout(std430, binding = 1) buffer EncodingM { float enc_m[]; };
layout(std430, binding = 2) buffer EncodingV { float enc_v[]; };
layout(std430, binding = 3) buffer EncodingStamp { uint enc_stamp[]; };
layout(std430, binding = 4) readonly buffer EncodingCatchUp { vec2 enc_catch_up[]; };

#include "encoding_adam.glsl"

void main() {
    const uint stride = gl_NumWorkGroups.x * 256u;
    for (uint cell = gl_GlobalInvocationID.x; cell < pc.cells; cell += stride) {
        encoding_catch_up(cell, enc_stamp[cell], pc.step);
        enc_stamp[cell] = pc.step;
    }
}
