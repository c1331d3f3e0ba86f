// The workgroup's local gradient sums of the encoding's leading cells (train_step.comp's
// ENC_LOCAL_CELLS): cleared before the step's first barrier, added to by enc_cell_grad, and each
// cell's added to its record in device memory once, after the workgroup's last tile. The
// including kernel declares `s_enc_local` (ENC_LOCAL_WORDS uints, a cell's features in a row:
// shared memory, in a block where the kernel lays its shared memory out explicitly) and the
// bindings enc_state_u64 and enc_state_u.
//
// The sums are 32-bit, one a feature, although device memory adds a pair's features as one 64-bit
// word: 64-bit shared atomics made the steps slower than no sums at all, 32-bit ones faster
// (bench/archive/RESULTS.md, "local gradient sums for the hash grid's coarsest levels"). A
// feature's sum fits 32 bits as its device-memory word's does (encoding_state.glsl's scale bounds
// a cell's whole step), so the pair's addend formed from the two sums is exactly what the
// samples' own addends add up to.
//
// The sums hold ENC_LOCAL_COUNT cells from ENC_LOCAL_BASE (sum i: cell ENC_LOCAL_BASE + i; the
// training step's are cells [0, ENC_LOCAL_CELLS); the deferred pass defines them for the set it
// sums, encoding_deferred_sums.comp).
#if ENC_LOCAL_CELLS
#ifndef ENC_LOCAL_BASE
#define ENC_LOCAL_BASE 0u
#define ENC_LOCAL_COUNT uint(ENC_LOCAL_CELLS)
#endif

// Adds to sum `sum` (cell ENC_LOCAL_BASE + sum).
void enc_local_add(uint sum, int q[ENC_CELL_FEATURES]) {
    for (int f = 0; f < ENC_CELL_FEATURES; ++f) atomicAdd(s_enc_local[sum * uint(ENC_CELL_FEATURES) + uint(f)], uint(q[f]));
}

// Before the workgroup's first barrier.
void enc_local_clear() {
    for (uint i = gl_LocalInvocationIndex; i < ENC_LOCAL_COUNT * uint(ENC_CELL_FEATURES); i += gl_WorkGroupSize.x)
        s_enc_local[i] = 0u;
}

// After the workgroup's last tile (a workgroup-uniform call: it passes a barrier). Each invocation
// takes whole pairs (and odd last features): a cell's pair j at index cell * slots + j.
void enc_local_flush() {
    barrier();
    const uint slots = uint(ENC_CELL_FEATURES + 1) / 2u;
    for (uint i = gl_LocalInvocationIndex; i < ENC_LOCAL_COUNT * slots; i += gl_WorkGroupSize.x) {
        const uint sum = i / slots, f = 2u * (i % slots), word = sum * uint(ENC_CELL_FEATURES) + f;
        const uint cell = ENC_LOCAL_BASE + sum;
        const int lo = int(s_enc_local[word]);
        if (f + 1u < uint(ENC_CELL_FEATURES)) {
            const int hi = int(s_enc_local[word + 1u]);
            if (lo != 0 || hi != 0) atomicAdd(enc_state_u64[ENC_GRAD_AT(cell, f) / 2u], enc_grad_fixed_addend(lo, hi));
        } else if (lo != 0) {
            atomicAdd(enc_state_u[ENC_GRAD_AT(cell, f)], uint(lo));
        }
    }
}

#else
void enc_local_clear() {}
void enc_local_flush() {}
#endif
