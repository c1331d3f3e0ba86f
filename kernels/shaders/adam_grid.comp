#version 450
// Sparse per-cell Adam on the feature grid: one invocation per cell; only cells touched by this
// step's samples take a step (their moments stay frozen otherwise), then their gradient and flag
// are cleared for the next step.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "adam.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer GridParams { float grid_params[]; };
layout(std430, binding = 1) buffer GridM { float grid_m[]; };
layout(std430, binding = 2) buffer GridV { float grid_v[]; };
layout(std430, binding = 3) buffer GridGrad { float grid_grad[]; };
layout(std430, binding = 4) buffer GridTouched { uint grid_touched[]; };

// pc.count: number of cells.
void main() {
    const uint cell = gl_GlobalInvocationID.x;
    if (cell >= pc.count || grid_touched[cell] == 0u) return;
    for (uint c = 0; c < GRID_C; ++c) {
        uint i = cell * GRID_C + c;
        float m = grid_m[i], v = grid_v[i];
        grid_params[i] = adam_step(grid_params[i], grid_grad[i], m, v);
        grid_m[i] = m;
        grid_v[i] = v;
        grid_grad[i] = 0.0;
    }
    grid_touched[cell] = 0u;
}
