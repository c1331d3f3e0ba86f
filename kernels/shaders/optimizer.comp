#version 450
// One optimizer step for the whole model in one dispatch (the two parts share no data, so one
// dispatch replaces two and their launch costs):
//
// Workgroups [0, MLP_GROUPS): the MLP. Each owns PARAMS_PER_GROUP consecutive parameters (padded
// layout) and sums their gradient partials from train_step.comp (a row per workgroup, or per
// subgroup on the tensor cores; pc.count rows) with ROW_SLICES row slices in parallel (slice j
// takes rows j, j + ROW_SLICES, ...), combines the slices in a fixed order (deterministic) and
// takes an Adam step on the fp32 master weights. Workgroup 0 also reduces the step's loss into the loss log.
// (One invocation per parameter summing every row serially was latency-bound.)
//
// Workgroups [MLP_GROUPS, ...): the encoding. GRID_ADAM picks the form:
//   0 sparse (the seed's): the cells this step's samples touched step; the others and their
//     moments stay frozen.
//   1 dense, eager: every cell steps (untouched ones with a zero gradient, their momentum carrying
//     them on), as torch.optim.Adam on a dense grid tensor; its cost grows with the grid.
//   2 dense, lazy: the result of 1 at a cost that follows the batch (encoding_adam.glsl). The next
//     step must read every cell it samples as eager Adam would have left it, so the optimizer
//     visits the next step's cells: each takes the step its record's gradient belongs to (the
//     step after its last visit, which read it), then the zero-gradient steps it skipped since,
//     up to this one; a cell that this step read and the next does not keeps its gradient until a
//     later visit or the settle pass takes it. One visit a cell: the next step's cells alone,
//     since visiting both steps' cells costs the large photos' steps more (bench/archive/RESULTS.md,
//     "lazy dense Adam visits the next step's cells alone").
// The sparse and lazy forms find a step's cells as the training step found them: its samples
// drawn again (sampling.glsl) and the encoding's backward pass run with a visitor in place of the
// gradient atomics, so the training step marks and lists nothing (those marks, a returning
// atomic and a list entry per cell a sample reads, were half of the 8192x8192 photo's step;
// bench/archive/RESULTS.md, "the optimizer finds a step's cells from its samples"). A cell that several samples read is stepped once, by the invocation that
// claims it: the first to exchange its stamp for this step's.
// The workgroups loop over the cells (eager) or the samples, so their count does not grow with the
// grid.
// Every extension a variant may use is enabled: one it does not use adds nothing to its SPIR-V.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

#include "common.glsl"
#include "adam.glsl"

// PARAMS_PER_GROUP comes from the Trainer, which sizes the dispatch by it (gpu_model.hpp's
// optimizer_params_per_group: more for larger MLPs).
#define GROUP_SIZE 256
#define ROW_SLICES (GROUP_SIZE / PARAMS_PER_GROUP)
#define MLP_GROUPS ((MLP_PARAMS + PARAMS_PER_GROUP - 1) / PARAMS_PER_GROUP)
layout(local_size_x = GROUP_SIZE) in;

layout(std430, binding = 0) buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) buffer MlpM { float mlp_m[]; };
layout(std430, binding = 2) buffer MlpV { float mlp_v[]; };
layout(std430, binding = 3) readonly buffer MlpPartials { float mlp_partials[]; };
layout(std430, binding = 4) readonly buffer LossPartials { float loss_partials[]; };
layout(std430, binding = 5) buffer LossLog { float loss_log[]; };
layout(std430, binding = 6) buffer EncodingParams { float enc_params[]; };
// The encoding's training state (encoding_state.glsl), as 16-byte words (whole records) and as
// uints (the stamps, which claim cells).
#ifndef ENC_STATE_BY_ADDRESS // else encoding_state.glsl reaches it by address
layout(std430, binding = 7) buffer EncodingStateQuads { vec4 enc_state4[]; };
layout(std430, binding = 8) buffer EncodingStateBits { uint enc_state_u[]; }; // stamps (claims)
#endif
layout(std430, binding = 9) readonly buffer EncodingCatchUp { vec4 enc_catch_up[]; }; // lazy form only
// MLP_FP16_COPY: the fp16 copy of the MLP's weights that tensor-core kernels read from memory
// (mlp_coopmat.glsl, weights not in shared memory), kept current with the master weights.
// Declared only where kept: a kernel that names it declares 16-bit storage, which a device may lack.
#if MLP_FP16_COPY
layout(std430, binding = 10) writeonly buffer MlpWeights16 { float16_t mlp_w16[]; };
#endif
#include "encoding_state.glsl"

#include "encoding_adam.glsl"

shared float s_sum[ROW_SLICES][PARAMS_PER_GROUP];
shared float s_loss[GROUP_SIZE];

// pc.count: partial rows (train workgroups); pc.slot: loss log entry of this step; pc.lr: the MLP's
// learning rate; pc.cells: the encoding's optimizer cells, whose schedule is in the push constants too.
void step_mlp(uint group) {
    const uint tid = gl_LocalInvocationID.x;
    const uint lane = tid % PARAMS_PER_GROUP, slice = tid / PARAMS_PER_GROUP;
    const uint p = group * PARAMS_PER_GROUP + lane;
    // The stepping invocation loads the weight and its moments before the rows are summed, so the
    // two waits on memory overlap instead of following each other.
    const bool steps = slice == 0u && p < MLP_PARAMS;
    float param = 0.0, m = 0.0, v = 0.0;
    if (steps) {
        param = mlp_params[p];
        m = mlp_m[p];
        v = mlp_v[p];
    }
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

    if (!steps) return;
    float grad = 0.0;
    for (uint j = 0; j < ROW_SLICES; ++j) grad += s_sum[j][lane];
    param = adam_step(param, grad, m, v, pc.lr);
    mlp_params[p] = param;
#if MLP_FP16_COPY
    mlp_w16[p] = float16_t(param);
#endif
    mlp_m[p] = m;
    mlp_v[p] = v;
}

// Brings one encoding cell (parameters q, record r as loaded), at step `from`, to step t =
// pc.step + 1 with the gradient the training step left in its record, cleared for the next step.
// Lazy (visiting ahead): the record holds step from + 1's gradient, taken first, then the
// zero-gradient steps after it (encoding_step_held). Otherwise the gradient is step t's (zero
// where no sample touched the cell).
void step_cell(uint cell, uint from, EncCellParams q, EncRecord r) {
    const uint t = pc.step + 1u;
    float grad[ENC_CELL_FEATURES];
    take_gradients(cell, r, grad);
    if (GRID_ADAM == 2) encoding_step_held(from, t, grad, q, r);
    else encoding_adam(grad, q, r);
    set_record_stamp(r, t);
    store_cell(cell, q, r);
}

#if GRID_ADAM != 1
// Steps `cell` unless another invocation has claimed it for this step. Only the claim's winner
// writes a cell in this dispatch, so what it reads is current, whenever it reads it.
// The record and parameters are read beside the claim, so that the requests travel together (a
// lost claim drops them), except where lazy Adam visits ahead on an encoding whose samples meet
// in the same cells (ENC_READ_BESIDE_CLAIM 0, EncodingDescriptor::visits_read_beside_claim): there
// the winner reads once it holds the claim, as the losers' reads of the same records cost more
// than the round trip saved; the dense grid's claims are nearly all won, so reading beside them
// saves the round trip (bench/archive/RESULTS.md, "a step's cells claimed by whole warps").
void step_claimed(uint cell) {
    const uint t = pc.step + 1u;
    if (GRID_ADAM == 2 && !bool(ENC_READ_BESIDE_CLAIM)) {
        const uint from = atomicExchange(enc_state_u[ENC_STAMP_AT(cell)], t);
        if (from < t) {
            const EncRecord r = load_record(cell);
            step_cell(cell, from, cell_params(cell, r), r);
        }
    } else {
        const EncRecord r = load_record(cell);
        const EncCellParams q = cell_params(cell, r);
        const uint from = atomicExchange(enc_state_u[ENC_STAMP_AT(cell)], t);
        if (from < t) step_cell(cell, from, q, r);
    }
}
// VISIT_PARTS invocations share a sample, each claiming every VISIT_PARTS-th cell it visits (one
// each on the dense grid), so that no invocation waits on a long chain of cells' memory round
// trips; VISIT_SLOTS is how many that is at most. The host sets both from the cells a sample reads.
// The backward pass only notes an invocation's cells; it claims them after, every lane of a warp
// together. Claimed inside the pass, each cell's claim sat in a branch that the lanes of one part
// alone took, so a warp ran its parts' claims, each a chain of memory round trips, one after
// another.
uint visit_index = 0u, visit_part = 0u;
uint visit_cells[VISIT_SLOTS];
#define ENC_CELL_GRAD(cell, group, g)                                            \
    {                                                                            \
        const uint visit_i = visit_index++;                                      \
        if (visit_i % VISIT_PARTS == visit_part) visit_cells[visit_i / VISIT_PARTS] = (cell); \
    }
#define ENC_LEVEL_LOOP [[unroll]] // the hash grid's levels: visit_cells indexed by constants
#endif
// The encoding: its cells' fixed-point groups (take_gradients) and, for the sparse and lazy forms,
// its backward pass (visit_samples).
#define ENC_PARAM(i) enc_params[i]
#include "encoding.glsl"

#if GRID_ADAM != 1
#include "sampling.glsl"

// Claims and steps the cells of step `step`'s samples (this step's or, lazy, the next's).
void visit_samples(uint step, uint first, uint stride) {
    float zero[ENC_GRAD_DIM];
    for (int i = 0; i < ENC_GRAD_DIM; ++i) zero[i] = 0.0;
    for (uint w = first; w < pc.batch * VISIT_PARTS; w += stride) {
        visit_index = 0u;
        visit_part = w % VISIT_PARTS;
        encode_backward(pixel_uv(training_pixel(step, w / VISIT_PARTS)), zero);
        [[unroll]] for (uint j = 0u; j < VISIT_SLOTS; ++j)
            if (j * VISIT_PARTS + visit_part < visit_index) step_claimed(visit_cells[j]);
    }
}
#endif

// Workgroups: MLP_GROUPS for the MLP, then pc.encoding_groups for the encoding: every cell
// (eager), or this step's samples (sparse), or the next step's (lazy).
void main() {
    const uint group = gl_WorkGroupID.x;
    if (group < MLP_GROUPS) {
        step_mlp(group);
        return;
    }
    const uint encoding_group = group - MLP_GROUPS, local_id = gl_LocalInvocationID.x;
#if GRID_ADAM == 1
    for (uint cell = encoding_group * GROUP_SIZE + local_id; cell < pc.cells; cell += pc.encoding_groups * GROUP_SIZE) {
        const EncRecord r = load_record(cell);
        step_cell(cell, pc.step, cell_params(cell, r), r);
    }
#else
    visit_samples(GRID_ADAM == 2 ? pc.step + 1u : pc.step, encoding_group * GROUP_SIZE + local_id,
                  pc.encoding_groups * GROUP_SIZE);
#endif
}
