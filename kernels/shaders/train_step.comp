#version 450
// One training step, fused: draw samples (counter-based RNG), fetch targets, encode, forward, MSE
// loss, backward. Persistent workgroups: a fixed number of workgroups (see Trainer) loop over the
// batch's tiles, so memory and the final reduction do not grow with the batch. Each workgroup
// (each subgroup, on the tensor cores) leaves its weight gradients, summed over its tiles, in its
// own partial row (no atomics; the rows are summed in a fixed order by optimizer.comp); encoding
// gradients are scattered with atomics (fixed-point pairs or floats: encoding_state.glsl) into
// the cells' records; an optimizer that steps only the cells a step touched (sparse, lazy dense
// Adam) finds them again from the step's samples, so nothing here marks or lists them.
// With EXPLICIT_SAMPLES the uvs and targets come from buffers and outputs are written (tests).
//
// Two bodies share the sampling, loss and encoding code:
//   COOPMAT=0 (portable): a tile is TILE samples, one per invocation, layers separated by
//     workgroup barriers (mlp.glsl);
//   COOPMAT=1 (tensor cores, mlp_coopmat.glsl): every 32-wide subgroup takes its own tiles of 32
//     samples and keeps its gradient sums to itself until the step's end, then writes them as its
//     own row (and its loss as its own partial), which the optimizer sums with all the others.
// Every extension a variant may use is enabled: one it does not use adds nothing to its SPIR-V.
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shared_memory_block : require

#include "common.glsl"
#include "sampling.glsl"

layout(local_size_x = TILE) in;

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer EncodingParams { float enc_params[]; };
// The encoding's training state (encoding_state.glsl), as floats and as uints (and, for fixed-point
// gradients, as 64-bit words).
#ifndef ENC_STATE_BY_ADDRESS // else encoding_state.glsl reaches it by address
layout(std430, binding = 2) buffer EncodingState { float enc_state[]; };
layout(std430, binding = 3) buffer EncodingStateBits { uint enc_state_u[]; };
// Declared only with fixed-point gradients: a kernel that names it declares 64-bit integers.
#if ENC_GRAD_FIXED
layout(std430, binding = 2) buffer EncodingStatePairs { uint64_t enc_state_u64[]; }; // gradient pairs
#endif
#endif
layout(std430, binding = 4) buffer MlpPartials { float mlp_partials[]; };
layout(std430, binding = 5) buffer LossPartials { float loss_partials[]; };
#ifdef EXPLICIT_SAMPLES
layout(std430, binding = 6) readonly buffer SampleUv { vec2 sample_uv[]; };
layout(std430, binding = 7) readonly buffer SampleTarget { float sample_target[]; };
layout(std430, binding = 8) writeonly buffer SampleOut { float sample_out[]; };
#else
#include "target_image.glsl" // the image's parts from binding 6 (IMAGE_BINDING; 3 outputs)
#endif

#define ENC_ADDS_GRADIENTS
#include "encoding_state.glsl"

#if ENC_PARAMS_IN_RECORD
// Parameter i in its cell's record (encoding_state.glsl), beside the gradient words the step adds
// to: one record's first sector a cell.
#define ENC_PARAM(i) enc_state[ENC_WORD_AT(uint(i) / uint(ENC_CELL_FEATURES), ENC_PARAM_WORD(uint(i) % uint(ENC_CELL_FEATURES)))]
#else
#define ENC_PARAM(i) enc_params[i]
#endif

// ENC_LOCAL_CELLS (the host's TrainTiling::local_gradient_cells): cells [0, ENC_LOCAL_CELLS), the
// most-read ones (a hash grid's coarsest levels, where every sample adds to one of a few hundred
// cells), take their fixed-point shares in the workgroup's shared memory, and each of their sums
// goes to device memory once, at the workgroup's end (enc_local_flush). Integer sums are the same
// in any order: so are the gradients, bit for bit.
// (The request's invariants, such as fixed-point gradients here, are checked by the host:
// gpu_model.cpp's check_train_tiling.)
#if ENC_LOCAL_CELLS
#define ENC_LOCAL_WORDS (ENC_LOCAL_CELLS * ENC_CELL_FEATURES) // a 32-bit sum a feature
void enc_local_add(uint cell, int q[ENC_CELL_FEATURES]); // beside the sums' declaration, below
#endif

// Adds one sample's gradient of an encoding cell (of fixed-point group `group`). Nothing marks the
// cell touched: the optimizer finds the step's cells again from its samples (optimizer.comp).
void enc_cell_grad(uint cell, uint group, float g[ENC_CELL_FEATURES]) {
#if ENC_GRAD_FIXED
    int q[ENC_CELL_FEATURES];
    enc_grad_fixed_shares(group, g, q);
#if ENC_LOCAL_CELLS
    if (cell < uint(ENC_LOCAL_CELLS)) {
        enc_local_add(cell, q);
        return;
    }
#endif
    for (int f = 0; f + 1 < ENC_CELL_FEATURES; f += 2)
        atomicAdd(enc_state_u64[ENC_GRAD_AT(cell, f) / 2u], enc_grad_fixed_addend(q[f], q[f + 1]));
    if (ENC_CELL_FEATURES % 2 == 1)
        atomicAdd(enc_state_u[ENC_GRAD_AT(cell, ENC_CELL_FEATURES - 1)], uint(q[ENC_CELL_FEATURES - 1]));
#else
    for (int f = 0; f < ENC_CELL_FEATURES; ++f) atomicAdd(enc_state[ENC_GRAD_AT(cell, f)], g[f]);
#endif
}
// CM_LATE_ENCODING (the host's TrainTiling::late_encoding; mlp_coopmat_split.glsl): a tile's
// encoding backward pass is taken by the subgroups that neither hold samples nor stage the next
// tile's, while the next tile's sample subgroups take its last forward product; the tile's
// sample i by invocations CM_ROWS * (2 + k) + i, k < CM_LATE_SHARES, each adding of the cell
// gradients the encoding adds for it (its calls of ENC_CELL_GRAD, in their order) every
// CM_LATE_SHARES-th from the k-th on: width 128's two shares a sample, the dense grid's corners
// two an invocation, where the sample subgroups took all four at the tile's end while six
// subgroups of eight waited. Fixed-point sums are the same in any order: so are the gradients,
// bit for bit.
#if CM_LATE_ENCODING
#define CM_LATE_SHARES (uint(TILE) / uint(CM_ROWS) - 2u)
#define CM_LATE_SHARE (gl_LocalInvocationIndex / uint(CM_ROWS) - 2u)
#define CM_LATE_ROW (gl_LocalInvocationIndex % uint(CM_ROWS))
uint enc_visits; // the sample's cell gradients visited so far (late_encoding_backward sets it to 0)
void enc_cell_grad_share(uint cell, uint group, float g[ENC_CELL_FEATURES]) {
    if (enc_visits % CM_LATE_SHARES == CM_LATE_SHARE) enc_cell_grad(cell, group, g);
    ++enc_visits;
}
#define ENC_CELL_GRAD(cell, group, g) enc_cell_grad_share(cell, group, g)
#else
#define ENC_CELL_GRAD(cell, group, g) enc_cell_grad(cell, group, g)
#endif
// encoding_hash_grid.glsl's level loops unrolled where the MLP leaves registers to spare (a
// 32-wide MLP); beside a 64-wide one, whose registers are all taken, the unrolled code still
// spilled and trained slower (bench/archive/RESULTS.md, "gradient replicas measured and left out").
#if HIDDEN <= 32
#define ENC_LEVEL_LOOP [[unroll]]
#endif
#include "encoding.glsl"

// ENC_DEFERRED_GROUPS (the host's TrainTiling::deferred): the input gradients of the encoding's
// leading groups, [0, ENC_DEFERRED_INPUTS), go to a buffer for every sample
// (encoding_deferred_inputs.glsl), and after the step encoding_deferred_sums.comp adds them up in
// shared memory, cell by cell; encode_backward leaves those groups out here. For the coarse levels
// that the tile's shared memory has no room to sum (ENC_LOCAL_CELLS), whose cells each take
// thousands of a step's atomics.
#if ENC_DEFERRED_GROUPS
layout(std430, binding = ENC_DEFERRED_BINDING) writeonly buffer DeferredInputs { uint enc_deferred[]; };
#define ENC_DEFERRED_STORES
#include "encoding_deferred_inputs.glsl"
void enc_defer(uint s, float dx[ENC_GRAD_DIM]) { enc_deferred_store(s, dx); }
#else
void enc_defer(uint s, float dx[ENC_GRAD_DIM]) {}
#endif


// The tiles [x, y) of `tiles` that worker `me` of `workers` takes: a contiguous share, sizes
// differing by at most one (every worker gets one while workers <= tiles).
uvec2 tile_range(uint me, uint workers, uint tiles) {
    const uint share = tiles / workers, extra = tiles % workers;
    const uint first = me * share + min(me, extra);
    return uvec2(first, first + share + (me < extra ? 1u : 0u));
}

// Sample s of this step as loaded: its uv and its target's words as stored (explicit samples:
// the target itself). Apart from sample_finish, which unpacks them, so that the tensor-core step
// can load a tile ahead.
#ifdef EXPLICIT_SAMPLES
#include "sample_fetch_explicit.glsl"
#else
#include "sample_fetch_drawn.glsl"
#endif

// Sample s of this step: its uv and target (zero past OUT_DIM).
void training_sample(uint s, out vec2 uv, out float target[OUT_PAD]) {
    const SampleFetch f = sample_fetch(s);
    uv = f.uv;
    sample_finish(f, target);
}


#if COOPMAT
#include "train_step_coopmat.glsl"
#else
#include "train_step_portable.glsl"
#endif
