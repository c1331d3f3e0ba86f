// Adam for the encoding's parameters, shared by optimizer.comp and encoding_settle.comp. The
// including kernel declares the buffers enc_params, enc_m, enc_v (floats, ENC_CELL_FEATURES per
// optimizer cell) and, for the lazy form, enc_stamp (per cell: the Adam steps it has taken).
//
// Dense Adam steps every cell every step; a cell no sample touched sees a zero gradient and its
// momentum carries it on. Run eagerly that costs a pass over every parameter per step, which grows
// with the grid or table. The lazy form gives the same result for what the step touched only: a
// touched cell first takes the zero-gradient steps it skipped since its stamp (encoding_catch_up),
// then this step's; before anything reads the parameters, Trainer settles every cell to the
// current step. The skipped steps' learning rates and bias corrections are recomputed here from
// the schedule in fp32 (the eager form takes the host's, computed in double: both agree to
// rounding).
//
// A skipped step k steps after the last gradient moves a parameter by at most
// lr * (beta1 / sqrt(beta2))^k * |m / sqrt(v)|: past pc.catch_up_limit such steps (chosen by the
// host, kernels/src/trainer.cpp) the sum of all later moves is below 1e-7 of one step, so those
// steps only decay the moments.
#ifndef FF_ENCODING_ADAM_GLSL
#define FF_ENCODING_ADAM_GLSL

#include "adam.glsl"

// The encoding's learning rate at Adam step t (1-based): Trainer::lr_scale's schedule, in fp32.
float encoding_lr(uint t) {
    const float step = float(t - 1u);
    const float total = float(max(pc.steps_total, 1u));
    const float warmup = pc.lr_warmup * total;
    const float ramp = step + 1.0 < warmup ? (step + 1.0) / warmup : 1.0;
    const float start = pc.lr_decay_start * total;
    if (step <= start) return pc.lr_grid_base * ramp;
    const float x = min(1.0, (step - start) / max(1.0, total - start));
    return pc.lr_grid_base * ramp * exp2(x * pc.log2_lr_final_scale);
}

// This step's Adam step for every parameter of `cell`, with the gradients `grad`; the rate and
// bias corrections are the host's (push constants), as for the MLP.
void encoding_adam(uint cell, float grad[ENC_CELL_FEATURES]) {
    for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        const uint i = cell * ENC_CELL_FEATURES + c;
        float m = enc_m[i], v = enc_v[i];
        enc_params[i] = adam_step(enc_params[i], grad[c], m, v, pc.lr_grid);
        enc_m[i] = m;
        enc_v[i] = v;
    }
}

#ifdef ENCODING_ADAM_LAZY
// Brings `cell` from Adam step `from` to step `to`: the zero-gradient steps from + 1 .. to. With
// no gradient the moments decay in closed form (m beta1^j, v beta2^j after j steps), so each
// skipped step's move is computed from the moments at `from` alone: the steps are independent
// terms of one sum, not a chain of dependent updates.
void encoding_catch_up(uint cell, uint from, uint to) {
    if (from >= to) return;
    float p[ENC_CELL_FEATURES], m[ENC_CELL_FEATURES], v[ENC_CELL_FEATURES];
    for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        const uint i = cell * ENC_CELL_FEATURES + c;
        p[c] = enc_params[i];
        m[c] = enc_m[i];
        v[c] = enc_v[i];
    }
    const uint steps = min(to - from, pc.catch_up_limit);
    for (uint j = 1u; j <= steps; ++j) {
        const uint t = from + j;
        const float lr = encoding_lr(t);
        const float bc1 = 1.0 - exp2(float(t) * pc.log2_beta1), bc2 = 1.0 - exp2(float(t) * pc.log2_beta2);
        const float d1 = exp2(float(j) * pc.log2_beta1) / bc1, d2 = exp2(float(j) * pc.log2_beta2) / bc2;
        for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) p[c] -= lr * (m[c] * d1) / (sqrt(v[c] * d2) + pc.epsilon);
    }
    const float k = float(to - from);
    const float decay1 = exp2(k * pc.log2_beta1), decay2 = exp2(k * pc.log2_beta2);
    for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        const uint i = cell * ENC_CELL_FEATURES + c;
        enc_params[i] = p[c];
        enc_m[i] = m[c] * decay1;
        enc_v[i] = v[c] * decay2;
    }
}
#endif

#endif
