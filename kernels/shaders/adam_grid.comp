#version 450
// Adam on the feature grid, one invocation per cell. GRID_DENSE_ADAM=0 (sparse, as the seed): only
// cells touched by this step's samples take a step and their moments stay frozen otherwise.
// GRID_DENSE_ADAM=1: every cell steps every step (untouched cells see a zero gradient, so their
// momentum carries them on), as torch.optim.Adam does on a dense grid tensor. Touched cells' gradients
// and flags are cleared for the next step either way.
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
    if (cell >= pc.count) return;
    const bool touched = grid_touched[cell] != 0u;
#if !GRID_DENSE_ADAM
    if (!touched) return;
#endif
    for (uint c = 0; c < GRID_C; ++c) {
        uint i = cell * GRID_C + c;
        float m = grid_m[i], v = grid_v[i];
        grid_params[i] = adam_step(grid_params[i], grid_grad[i], m, v);
        grid_m[i] = m;
        grid_v[i] = v;
        if (touched) grid_grad[i] = 0.0;
    }
    if (touched) grid_touched[cell] = 0u;
}
