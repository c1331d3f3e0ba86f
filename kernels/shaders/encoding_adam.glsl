// Adam for the encoding's parameters, shared by optimizer.comp and encoding_settle.comp. The
// including kernel declares the buffers enc_params (ENC_CELL_FEATURES floats per optimizer cell),
// enc_state4 (the cells' records, encoding_state.glsl, as 16-byte words) and, for the lazy form,
// enc_catch_up (the host's table of the skipped steps' sums, kernels/src/adam_schedule.hpp).
//
// Dense Adam steps every cell every step; a cell no sample touched sees a zero gradient and its
// momentum carries it on. Run eagerly that costs a pass over every parameter per step, which grows
// with the grid or table. The lazy form gives the same result for what the step touched only: a
// touched cell first takes the zero-gradient steps it skipped since its stamp (encoding_catch_up,
// in closed form: its cost does not grow with the gap), then this step's; before anything reads
// the parameters, Trainer settles every cell to the current step.
//
// A cell's record is read and written whole, as 16-byte words (EncRecord): the eager pass walks
// the records in order, and word loads keep it as cheap as the separate arrays were.
#ifndef FF_ENCODING_ADAM_GLSL
#define FF_ENCODING_ADAM_GLSL

#include "adam.glsl"
#include "encoding_state.glsl"

#define ENC_RECORD_QUADS (uint(ENC_RECORD) / 4u)
struct EncRecord {
    vec4 q[ENC_RECORD_QUADS];
};
#define REC_WORD(r, w) r.q[(w) / 4u][(w) % 4u]
#define REC_GRAD(r, f) REC_WORD(r, ENC_GRAD_WORD(f))
#define REC_M(r, f) REC_WORD(r, ENC_M_WORD(f))
#define REC_V(r, f) REC_WORD(r, ENC_V_WORD(f))
#define REC_STAMP_WORD(r) REC_WORD(r, ENC_STAMP_WORD)

EncRecord load_record(uint cell) {
    EncRecord r;
    [[unroll]] for (uint k = 0u; k < ENC_RECORD_QUADS; ++k) r.q[k] = enc_state4[cell * ENC_RECORD_QUADS + k];
    return r;
}

void store_record(uint cell, EncRecord r) {
    [[unroll]] for (uint k = 0u; k < ENC_RECORD_QUADS; ++k) enc_state4[cell * ENC_RECORD_QUADS + k] = r.q[k];
}

uint record_stamp(EncRecord r) { return floatBitsToUint(REC_STAMP_WORD(r)); }
void set_record_stamp(inout EncRecord r, uint t) { REC_STAMP_WORD(r) = uintBitsToFloat(t); }

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

// A cell's parameters (ENC_CELL_FEATURES floats), read and written whole.
struct EncCellParams {
    float p[ENC_CELL_FEATURES];
};
EncCellParams load_cell_params(uint cell) {
    EncCellParams q;
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) q.p[c] = enc_params[cell * ENC_CELL_FEATURES + c];
    return q;
}
void store_cell_params(uint cell, EncCellParams q) {
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) enc_params[cell * ENC_CELL_FEATURES + c] = q.p[c];
}

// This step's Adam step for a cell's parameters q, with the gradients `grad`, on the moments in
// its record r; the rate and bias corrections are the host's (push constants), as for the MLP.
void encoding_adam(float grad[ENC_CELL_FEATURES], inout EncCellParams q, inout EncRecord r) {
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        float m = REC_M(r, c), v = REC_V(r, c);
        q.p[c] = adam_step(q.p[c], grad[c], m, v, pc.lr_grid);
        REC_M(r, c) = m;
        REC_V(r, c) = v;
    }
}

#ifdef ENCODING_ADAM_LAZY
// Steps from + 1 .. to of one parameter, one by one: the exact form, for the rare parameter whose
// epsilon is not negligible next to sqrt(v) (below).
float catch_up_stepwise(float p, float m, float v, uint from, uint to) {
    const uint steps = min(to - from, pc.catch_up_limit);
    for (uint j = 1u; j <= steps; ++j) {
        const uint t = from + j;
        const float lr = encoding_lr(t);
        const float bc1 = 1.0 - exp2(float(t) * pc.log2_beta1), bc2 = 1.0 - exp2(float(t) * pc.log2_beta2);
        const float d1 = exp2(float(j) * pc.log2_beta1) / bc1, d2 = exp2(float(j) * pc.log2_beta2) / bc2;
        p -= lr * (m * d1) / (sqrt(v * d2) + pc.epsilon);
    }
    return p;
}

// R(f), S(f) of the host's table (kernels/src/adam_schedule.hpp), constant past its end.
vec2 catch_up_sums(uint f) { return enc_catch_up[min(f, pc.catch_up_last)]; }

// Brings a cell (parameters q, record r) from Adam step `from` to step `to`: the zero-gradient
// steps from + 1 .. to. With no gradient the moments decay in closed form (m beta1^j, v beta2^j
// after j steps), so the moves of all skipped steps add up to a sum of known terms times
// m / sqrt(v) (m, v at `from`), with epsilon's share to first order (adam_schedule.hpp derives
// it): two lookups whatever the gap k.
// The form holds where d = epsilon / (sqrt(v) beta2^(j/2)) stays below 1e-3 over the steps that
// still move the parameter (its error is of order d^2 < 1e-6 of the moves): with the default
// 1e-15, every parameter whose gradients reached ~1e-11. Elsewhere the steps are taken one by one,
// up to the catch-up limit past which no step moves a parameter.
void encoding_catch_up(uint from, uint to, inout EncCellParams q, inout EncRecord r) {
    if (from >= to) return;
    const float k = float(to - from);
    const float decay1 = exp2(k * pc.log2_beta1), decay2 = exp2(k * pc.log2_beta2);
    const vec2 at_from = catch_up_sums(from), at_to = catch_up_sums(to);
    const float a = at_from.x - exp2(k * (pc.log2_beta1 - 0.5 * pc.log2_beta2)) * at_to.x;
    const float e = at_from.y - exp2(k * (pc.log2_beta1 - pc.log2_beta2)) * at_to.y;
    const float v_floor = exp2(float(min(to - from, pc.catch_up_limit)) * 0.5 * pc.log2_beta2);
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        const float m = REC_M(r, c), v = REC_V(r, c);
        if (m != 0.0) {
            const float root = sqrt(v);
            if (v > 0.0 && pc.epsilon <= 1e-3 * root * v_floor)
                q.p[c] -= (m / root) * (a - (pc.epsilon / root) * e);
            else
                q.p[c] = catch_up_stepwise(q.p[c], m, v, from, to);
        }
        REC_M(r, c) = m * decay1;
        REC_V(r, c) = v * decay2;
    }
}
#endif

#endif
