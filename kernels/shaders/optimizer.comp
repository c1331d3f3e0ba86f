#version 450
// One optimizer step for the whole model in one dispatch (the two parts share no data, so one
// dispatch replaces two and their launch costs):
//
// Workgroups [0, MLP_GROUPS): the MLP. Each owns 32 consecutive parameters (padded layout) and sums
// their per-workgroup gradient partials from train_step.comp with 8 row slices in parallel (slice j
// takes rows j, j + 8, ...), combines the slices in a fixed order (deterministic) and takes an Adam
// step on the fp32 master weights. Workgroup 0 also reduces the step's loss into the loss log.
// (One invocation per parameter summing every row serially was latency-bound.)
//
// Workgroups [MLP_GROUPS, ...): the feature grid, one invocation per cell. GRID_DENSE_ADAM=0
// (sparse, as the seed): only cells touched by this step's samples take a step and their moments
// stay frozen otherwise. GRID_DENSE_ADAM=1: every cell steps every step (untouched cells see a zero
// gradient, so their momentum carries them on), as torch.optim.Adam does on a dense grid tensor.
// Touched cells' gradients and flags are cleared for the next step either way.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "adam.glsl"

#define PARAMS_PER_GROUP 32
#define ROW_SLICES 8
#define GROUP_SIZE (PARAMS_PER_GROUP * ROW_SLICES)
#define MLP_GROUPS ((MLP_PARAMS + PARAMS_PER_GROUP - 1) / PARAMS_PER_GROUP)
layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) buffer MlpM { float mlp_m[]; };
layout(std430, binding = 2) buffer MlpV { float mlp_v[]; };
layout(std430, binding = 3) readonly buffer MlpPartials { float mlp_partials[]; };
layout(std430, binding = 4) readonly buffer LossPartials { float loss_partials[]; };
layout(std430, binding = 5) buffer LossLog { float loss_log[]; };
layout(std430, binding = 6) buffer EncodingParams { float enc_params[]; };
layout(std430, binding = 7) buffer EncodingM { float enc_m[]; };
layout(std430, binding = 8) buffer EncodingV { float enc_v[]; };
layout(std430, binding = 9) buffer EncodingGrad { float enc_grad[]; };
layout(std430, binding = 10) buffer EncodingTouched { uint enc_touched[]; };

shared float s_sum[ROW_SLICES][PARAMS_PER_GROUP];
shared float s_loss[GROUP_SIZE];

// pc.count: partial rows (train workgroups); pc.slot: loss log entry of this step; pc.lr: the MLP's
// learning rate; pc.lr_grid and pc.cells: the grid's.
void step_mlp(uint group) {
    const uint tid = gl_LocalInvocationID.x;
    const uint lane = tid % PARAMS_PER_GROUP, slice = tid / PARAMS_PER_GROUP;
    const uint p = group * PARAMS_PER_GROUP + lane;
    float g = 0.0;
    if (p < MLP_PARAMS)
        for (uint w = slice; w < pc.count; w += ROW_SLICES) g += mlp_partials[w * MLP_PARAMS + p];
    s_sum[slice][lane] = g;

    if (group == 0) { // workgroup-uniform: the barriers below are safe
        float l = 0.0;
        for (uint w = tid; w < pc.count; w += GROUP_SIZE) l += loss_partials[w];
        s_loss[tid] = l;
        barrier();
        for (uint stride = GROUP_SIZE / 2; stride > 0; stride >>= 1) {
            if (tid < stride) s_loss[tid] += s_loss[tid + stride];
            barrier();
        }
        if (tid == 0) loss_log[pc.slot] = s_loss[0] / float(pc.batch * OUT_DIM);
    }
    barrier();

    if (slice != 0 || p >= MLP_PARAMS) return;
    float grad = 0.0;
    for (uint j = 0; j < ROW_SLICES; ++j) grad += s_sum[j][lane];
    float m = mlp_m[p], v = mlp_v[p];
    mlp_params[p] = adam_step(mlp_params[p], grad, m, v, pc.lr);
    mlp_m[p] = m;
    mlp_v[p] = v;
}

void step_grid(uint cell) {
    if (cell >= pc.cells) return;
    const bool touched = enc_touched[cell] != 0u;
#if !GRID_DENSE_ADAM
    if (!touched) return;
#endif
    for (uint c = 0; c < ENC_CELL_FEATURES; ++c) {
        uint i = cell * ENC_CELL_FEATURES + c;
        float m = enc_m[i], v = enc_v[i];
        enc_params[i] = adam_step(enc_params[i], enc_grad[i], m, v, pc.lr_grid);
        enc_m[i] = m;
        enc_v[i] = v;
        if (touched) enc_grad[i] = 0.0;
    }
    if (touched) enc_touched[cell] = 0u;
}

void main() {
    if (gl_WorkGroupID.x < MLP_GROUPS) step_mlp(gl_WorkGroupID.x);
    else step_grid((gl_WorkGroupID.x - MLP_GROUPS) * GROUP_SIZE + gl_LocalInvocationID.x);
}
