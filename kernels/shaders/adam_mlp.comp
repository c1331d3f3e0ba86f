#version 450
// Optimizer for the MLP: one invocation per parameter (padded layout). Sums the per-workgroup
// gradient partials of train_step.comp in a fixed order (deterministic), then takes an Adam step
// on the fp32 master weight. Invocation 0 also reduces the step's loss into the loss log.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "adam.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) buffer MlpM { float mlp_m[]; };
layout(std430, binding = 2) buffer MlpV { float mlp_v[]; };
layout(std430, binding = 3) readonly buffer MlpPartials { float mlp_partials[]; };
layout(std430, binding = 4) readonly buffer LossPartials { float loss_partials[]; };
layout(std430, binding = 5) buffer LossLog { float loss_log[]; };

// pc.count: partial rows (train workgroups); pc.slot: loss log entry of this step.
void main() {
    const uint p = gl_GlobalInvocationID.x;
    if (p == 0) {
        float loss = 0.0;
        for (uint w = 0; w < pc.count; ++w) loss += loss_partials[w];
        loss_log[pc.slot] = loss / float(pc.batch * OUT_DIM);
    }
    if (p >= MLP_PARAMS) return;
    float grad = 0.0;
    for (uint w = 0; w < pc.count; ++w) grad += mlp_partials[w * MLP_PARAMS + p];
    float m = mlp_m[p], v = mlp_v[p];
    mlp_params[p] = adam_step(mlp_params[p], grad, m, v);
    mlp_m[p] = m;
    mlp_v[p] = v;
}
