#version 450
// Adam on every splat parameter (one invocation per splat), with a learning rate per group:
// position (x, y), Cholesky factor (l11, l21, l22), colour (r, g, b). Clears the gradients for the
// next step, then projects the Cholesky factor back into its valid range (positive diagonal of at
// least min_scale, every entry at most max_scale) so Sigma stays invertible and footprints bounded.
#extension GL_GOOGLE_include_directive : require

#include "splat_common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Params { float params[]; };
layout(std430, binding = 1) buffer AdamM { float adam_m[]; };
layout(std430, binding = 2) buffer AdamV { float adam_v[]; };
layout(std430, binding = 3) buffer Grads { float grads[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    for (uint k = 0; k < SPLAT_PARAMS; ++k) {
        uint p = i * SPLAT_PARAMS + k;
        float lr = k < 2 ? pc.lr_position : (k < 5 ? pc.lr_cholesky : pc.lr_color);
        float g = grads[p];
        float m = pc.beta1 * adam_m[p] + (1.0 - pc.beta1) * g;
        float v = pc.beta2 * adam_v[p] + (1.0 - pc.beta2) * g * g;
        adam_m[p] = m;
        adam_v[p] = v;
        float step = lr * (m / pc.bias_correction1) / (sqrt(v / pc.bias_correction2) + pc.epsilon);
        float value = params[p] - step;
        if (k == 2 || k == 4) value = clamp(value, pc.min_scale, pc.max_scale);
        if (k == 3) value = clamp(value, -pc.max_scale, pc.max_scale);
        params[p] = value;
        grads[p] = 0.0;
    }
}
