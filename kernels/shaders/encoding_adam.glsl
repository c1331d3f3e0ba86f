// Adam for the encoding's parameters, shared by optimizer.comp and encoding_settle.comp. The
// including kernel declares the buffers enc_params (ENC_CELL_FEATURES floats per optimizer cell),
// enc_state4 (the cells' records, encoding_state.glsl, as 16-byte words) and, for the lazy form,
// enc_catch_up (the host's table of the skipped steps' sums, kernels/src/field/adam_schedule.hpp).
//
// Dense Adam steps every cell every step; a cell no sample touched sees a zero gradient and its
// momentum carries it on. Run eagerly that costs a pass over every parameter per step, which grows
// with the grid or table. The lazy form gives the same result for the cells a step reads only:
// a visited cell takes the steps it skipped since its stamp, the zero-gradient ones in closed form
// (encoding_catch_up: its cost does not grow with the gap) and the one its record's gradient
// belongs to (encoding_step_held, where the optimizer visits ahead; optimizer.comp says which
// step that is in each form); before anything reads the parameters, Trainer settles every cell
// to the current step.
//
// A cell's record is read and written whole, as 16-byte words (EncRecord): the eager pass walks
// the records in order, and word loads keep it as cheap as the separate arrays were.
#include "adam.glsl"
#include "encoding_state.glsl"
#include "encoding_catch_up.glsl"

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

// A cell's parameters where training keeps them: in its record r (ENC_PARAMS_IN_RECORD,
// encoding_state.glsl), else in enc_params.
EncCellParams cell_params(uint cell, EncRecord r) {
#if ENC_PARAMS_IN_RECORD
    EncCellParams q;
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) q.p[c] = REC_WORD(r, ENC_PARAM_WORD(c));
    return q;
#else
    return load_cell_params(cell);
#endif
}
// Writes a cell's record r and parameters q back, the parameters where training keeps them.
void store_cell(uint cell, EncCellParams q, EncRecord r) {
#if ENC_PARAMS_IN_RECORD
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) REC_WORD(r, ENC_PARAM_WORD(c)) = q.p[c];
#else
    store_cell_params(cell, q);
#endif
    store_record(cell, r);
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

// The gradient sums in a cell's record (encoding_state.glsl: fixed-point pairs or floats) as
// floats, cleared in the record. The kernel includes encoding.glsl (the cell's group) and sets
// pc.batch (the fixed-point units).
void take_gradients(uint cell, inout EncRecord r, out float grad[ENC_CELL_FEATURES]) {
#if ENC_GRAD_FIXED
    const float unit = 1.0 / enc_grad_fixed_scale(enc_group_cells(enc_cell_group(cell))).x;
    [[unroll]] for (uint c = 0u; c + 1u < ENC_CELL_FEATURES; c += 2u) {
        const ivec2 sums = enc_grad_fixed_pair(floatBitsToUint(REC_GRAD(r, c)), floatBitsToUint(REC_GRAD(r, c + 1u)));
        grad[c] = float(sums.x) * unit;
        grad[c + 1u] = float(sums.y) * unit;
    }
    if (ENC_CELL_FEATURES % 2 == 1)
        grad[ENC_CELL_FEATURES - 1] = float(floatBitsToInt(REC_GRAD(r, ENC_CELL_FEATURES - 1))) * unit;
#else
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) grad[c] = REC_GRAD(r, c);
#endif
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) REC_GRAD(r, c) = 0.0;
}

// Brings a cell (parameters q, record r) from Adam step `from` to step `to`: the zero-gradient
// steps from + 1 .. to (encoding_catch_up.glsl), each feature's moments decayed to match.
void encoding_catch_up(uint from, uint to, inout EncCellParams q, inout EncRecord r) {
    if (from >= to) return;
    const float k = float(to - from);
    const float decay1 = exp2(k * pc.log2_beta1), decay2 = exp2(k * pc.log2_beta2);
    const CatchUpTerms terms = catch_up_terms(from, to);
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        const float m = REC_M(r, c), v = REC_V(r, c);
        q.p[c] = caught_up_parameter(q.p[c], m, v, terms, from, to);
        REC_M(r, c) = m * decay1;
        REC_V(r, c) = v * decay2;
    }
}

// The lazy optimizer visits the next step's cells (optimizer.comp), so a cell's record holds the
// gradient of the step after its stamp: the optimizer before that step visited it because that
// step's samples read it (a run's first step, and the step after a settle, read cells no visit
// readied: theirs is then that step's gradient or zero). Brings such a cell from step `from` to
// `to` (from < to): step from + 1 with `grad`, at that step's rate and bias corrections, then the
// zero-gradient steps from + 2 .. to.
void encoding_step_held(uint from, uint to, float grad[ENC_CELL_FEATURES], inout EncCellParams q, inout EncRecord r) {
    const uint s = from + 1u;
    const float lr = encoding_lr(s);
    const float bc1 = 1.0 - exp2(float(s) * pc.log2_beta1), bc2 = 1.0 - exp2(float(s) * pc.log2_beta2);
    [[unroll]] for (uint c = 0u; c < ENC_CELL_FEATURES; ++c) {
        float m = REC_M(r, c), v = REC_V(r, c);
        q.p[c] = adam_update(q.p[c], grad[c], m, v, lr, bc1, bc2);
        REC_M(r, c) = m;
        REC_V(r, c) = v;
    }
    encoding_catch_up(s, to, q, r);
}
