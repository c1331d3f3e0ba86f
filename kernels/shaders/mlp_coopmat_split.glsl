// The training step's MLP on tensor cores for wide ReLU MLPs (hidden width 64 and more): the
// workgroup's subgroups share one tile of CM_ROWS samples, and subgroup s owns output block
// s % (HIDDEN / 16) (columns 16s..16s+15) of every hidden matrix, for all the tile's rows or, with
// CM_ROW_SPLIT parts, for part s / (HIDDEN / 16) of them (two subgroups a sub-partition of the
// multiprocessor instead of one).
//
// Why not mlp_coopmat.glsl's tiles of one subgroup each: a subgroup that takes a 64-wide MLP
// alone needs every weight block and every gradient sum of the MLP (24 fragments of sums, 192
// registers a lane), and 48 KiB of shared memory holds only three such subgroups' tiles, one
// workgroup a multiprocessor: three subgroups to keep four tensor cores busy, each with two
// 16-row blocks to hide a product's latency behind. Here a subgroup keeps only its own blocks'
// weights and sums (a quarter at width 64), works on CM_ROWS / 16 row blocks at once, and every
// sub-partition of the multiprocessor has a subgroup. The price is a workgroup barrier between
// the phases of a tile (3 * LAYERS + 3 of them), where the other layout had none.
//
// Shared memory holds the tile feature-major as in mlp_coopmat.glsl (column c of the tile is
// s_slice[c * RS + row]): slice 0 the encoding's outputs (IN_PAD), slices 1..LAYERS the hidden
// outputs (HIDDEN each), slice LAYERS + 1 the output deltas (OUT_PAD = 16), with backward in place.
// A tile's phases, each ended by a workgroup barrier:
//   the sample subgroups (the first CM_ROWS / 32; every subgroup at width 64) write their samples'
//   inputs; hidden matrix l: subgroup s computes output block s of every row block (bias and ReLU
//   on the accumulator); the last matrix, for each sample subgroup its own rows, fp32 through its
//   own rows of the delta slice, then the activations, the loss and the deltas (per sample);
//   matrix l from LAYERS down to 1: each subgroup adds its blocks' weight gradients (delta^T X_l),
//   then its input-gradient block of every row (delta W_l, ReLU's derivative read from X_l) over
//   slice l; matrix 0's weight gradients, then each sample subgroup's own rows' encoding gradients
//   over slice 0, read back per sample (a subgroup barrier suffices).
// The fp16 weights come from the copy in device memory (binding CM_WEIGHTS_BINDING), held in
// registers for the step where CM_WEIGHT_FRAGMENTS (the blocks a subgroup's products use: its
// forward blocks, its input-gradient blocks, the last matrix's), else loaded per phase. The fp32
// biases come from the master copy (binding 0).
//
// Gradient scaling is mlp_coopmat.glsl's: fp16 deltas carry CM_LOSS_SCALE, the fp32 sums are
// scaled once when written. The workgroup writes one partial row (each entry by the subgroup
// that owns it) and one loss partial, a row and a partial for each part.
#ifndef FF_MLP_COOPMAT_SPLIT_GLSL
#define FF_MLP_COOPMAT_SPLIT_GLSL

#if !defined(CM_SHARED_BLOCKS) || !CM_SHARED_BLOCKS
#error "the shared-tile MLP needs explicit shared memory layouts (CM_SHARED_BLOCKS)"
#endif
#if HIDDEN_ACT != ACT_RELU || (HIDDEN % 16) != 0 || (IN_PAD % 16) != 0 || OUT_PAD != 16
#error "the shared-tile MLP takes ReLU hidden layers, 16-aligned widths and 16 padded outputs"
#endif
// CM_ROW_SPLIT: subgroups a column block (each taking its share of the tile's row blocks).
#ifndef CM_ROW_SPLIT
#define CM_ROW_SPLIT 1
#endif
#if TILE != 2 * HIDDEN * CM_ROW_SPLIT || (CM_ROWS % 32) != 0 || CM_ROWS > TILE
#error "the shared-tile MLP runs CM_ROW_SPLIT * HIDDEN / 16 subgroups (TILE = 2 * HIDDEN * CM_ROW_SPLIT) on CM_ROWS <= TILE samples, a multiple of 32"
#endif

#define CM_H fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define CM_F fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define CM_LOSS_SCALE 128.0

#define WT 32                          // samples per sample subgroup
#define CM_COLUMN_BLOCKS (HIDDEN / 16)
#define CM_SUBGROUPS (CM_COLUMN_BLOCKS * CM_ROW_SPLIT)
#define CM_SAMPLE_SUBGROUPS (CM_ROWS / WT)
#define CM_ROW_BLOCKS (CM_ROWS / (16 * CM_ROW_SPLIT)) // a subgroup's share of the tile's row blocks
#define RS (CM_ROWS + 8)               // slice stride in halves: 16-byte aligned columns, conflict-free loads
#define SLICE_COL(l) ((l) == 0 ? 0 : IN_PAD + ((l) - 1) * HIDDEN)
#define SLICE_COLS (IN_PAD + LAYERS * HIDDEN + OUT_PAD)
#define CM_SLICE(c) (uint(c) * RS)     // column c's first row
#define CM_ENC_BLOCKS ((ENC_GRAD_DIM + 15) / 16)
// Row blocks a phase's products take at once: independent accumulators that hide each other's
// latency.
#ifndef CM_ROW_GROUP
#if CM_ROW_BLOCKS >= 4
#define CM_ROW_GROUP 4
#else
#define CM_ROW_GROUP CM_ROW_BLOCKS
#endif
#endif
#if (CM_ROW_BLOCKS % CM_ROW_GROUP) != 0
#error "CM_ROWS / 16 must be a multiple of the row group"
#endif

shared CmShared {
    float16_t s_slice[SLICE_COLS * RS];
    float s_loss_sub[CM_SUBGROUPS];
};
shared CmSliceQuads { uvec4 s_slice4[SLICE_COLS * RS / 8]; }; // columns as 16-byte words (bias sums)
shared CmSliceFloats { float s_out[SLICE_COLS * RS / 2]; };   // fp32 outputs over the delta slice

layout(std430, binding = CM_WEIGHTS_BINDING) readonly buffer MlpWeights16 { float16_t mlp_w16[]; };

#define CM_LANE gl_SubgroupInvocationID
#define CM_SUB gl_SubgroupID
#define CM_COL (CM_SUB % CM_COLUMN_BLOCKS)   // the column block this subgroup owns
#define CM_PART (CM_SUB / CM_COLUMN_BLOCKS)  // ... for its share of the row blocks
#define CM_RB(i) (CM_PART * CM_ROW_BLOCKS + (i)) // its i-th row block
#define CM_ROW (CM_SUB * WT + CM_LANE)           // this invocation's sample in the tile
#define CM_HOLDS_SAMPLES (CM_SUB < CM_SAMPLE_SUBGROUPS)
#define CM_TILE_SAMPLES CM_ROWS

float cm_out[OUT_PAD];         // per invocation: the network output
float cm_dact_out[OUT_PAD];    // per invocation: d act / d z at the outputs
float cm_z_out[OUT_PAD];       // per invocation: the last matrix's product, before its bias

// Weight block (ob, ib) of matrix l: as W^T, the forward's operand, or as W, the input gradients'
// (a load's layout must be a constant).
#define CM_BLOCK_AT(l, ob, ib) (W_OFF(l) + (ob) * 16 * IN_PAD_L(l) + (ib) * 16)
CM_H cm_load_block_t(int l, uint ob, uint ib) {
    CM_H b;
    coopMatLoadNV(b, mlp_w16, CM_BLOCK_AT(l, ob, ib), IN_PAD_L(l), true);
    return b;
}
CM_H cm_load_block(int l, uint ob, uint ib) {
    CM_H b;
    coopMatLoadNV(b, mlp_w16, CM_BLOCK_AT(l, ob, ib), IN_PAD_L(l), false);
    return b;
}

#ifndef CM_WEIGHT_FRAGMENTS
#define CM_WEIGHT_FRAGMENTS 1
#endif
// A subgroup's forward blocks: of hidden matrix l its output block's (CM_COL, kb), of the last
// matrix (0, kb); its input-gradient blocks: of matrix l >= 1 (ob, CM_COL).
#define CM_FWD_OFF(l) ((l) == 0 ? 0 : IN_PAD / 16 + ((l) - 1) * (HIDDEN / 16))
#define CM_FWD_FRAGS (CM_FWD_OFF(LAYERS) + HIDDEN / 16)
#define CM_BWD_OFF(l) (((l) - 1) * (HIDDEN / 16))
#define CM_BWD_FRAGS (CM_BWD_OFF(LAYERS) + 1)
#if CM_WEIGHT_FRAGMENTS
CM_H cm_wfwd[CM_FWD_FRAGS];
CM_H cm_wbwd[CM_BWD_FRAGS];
#endif

// Nothing of the weights lives in shared memory (the step's barrier after this is the tiles').
void cm_load_weights() {}

void cm_load_weight_fragments() {
#if CM_WEIGHT_FRAGMENTS
    [[unroll]] for (int l = 0; l < MATRICES; ++l)
        [[unroll]] for (uint kb = 0; kb < IN_PAD_L(l) / 16; ++kb)
            cm_wfwd[CM_FWD_OFF(l) + kb] = cm_load_block_t(l, l == LAYERS ? 0u : CM_COL, kb);
    [[unroll]] for (int l = 1; l < MATRICES; ++l)
        [[unroll]] for (uint ob = 0; ob < OUT_PAD_L(l) / 16; ++ob)
            cm_wbwd[CM_BWD_OFF(l) + ob] = cm_load_block(l, ob, CM_COL);
#endif
}

CM_H cm_forward_block(int l, uint kb) {
#if CM_WEIGHT_FRAGMENTS
    return cm_wfwd[CM_FWD_OFF(l) + kb];
#else
    return cm_load_block_t(l, l == LAYERS ? 0u : CM_COL, kb);
#endif
}

CM_H cm_input_gradient_block(int l, uint ob) {
#if CM_WEIGHT_FRAGMENTS
    return cm_wbwd[CM_BWD_OFF(l) + ob];
#else
    return cm_load_block(l, ob, CM_COL);
#endif
}

// Sample subgroups only.
void cm_put_input(float x[IN_PAD]) {
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) s_slice[CM_SLICE(i) + CM_ROW] = float16_t(x[i]);
}

// Hidden matrix l: output block CM_COL of the subgroup's row blocks, bias and ReLU on the accumulator (the
// bias enters as its starting value, a stride-0 load repeating the bias row), into slice l + 1.
void cm_forward_hidden(int l) {
    CM_F bias;
    coopMatLoadNV(bias, mlp_params, B_OFF(l) + CM_COL * 16, 0, false);
    [[dont_unroll]] for (uint rb0 = 0; rb0 < CM_ROW_BLOCKS; rb0 += CM_ROW_GROUP) {
        CM_F acc[CM_ROW_GROUP];
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) acc[g] = bias;
        [[unroll]] for (uint kb = 0; kb < IN_PAD_L(l) / 16; ++kb) {
            const CM_H w = cm_forward_block(l, kb);
            [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l) + kb * 16) + CM_RB(rb0 + g) * 16, RS, true);
                acc[g] = coopMatMulAddNV(a, w, acc[g]);
            }
        }
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
            for (int i = 0; i < acc[g].length(); ++i) acc[g][i] = max(acc[g][i], 0.0);
            coopMatStoreNV(CM_H(acc[g]), s_slice, CM_SLICE(SLICE_COL(l + 1) + CM_COL * 16) + CM_RB(rb0 + g) * 16, RS, true);
        }
    }
}

// The last matrix for this sample subgroup's own rows, fp32, into cm_z_out. A 16-row block of
// floats passes through the subgroup's own rows of the delta slice (its 16 columns' 32 halves
// each hold 16 floats; nobody else reads them before the deltas are written), so no other
// subgroup has to wait for it.
void cm_forward_output() {
    const int l = LAYERS;
    const uint out_at = (CM_SLICE(SLICE_COL(LAYERS + 1)) + CM_SUB * WT) / 2u; // floats; column stride RS / 2
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        CM_F acc = CM_F(0.0);
        [[unroll]] for (uint kb = 0; kb < HIDDEN / 16; ++kb) {
            CM_H a;
            coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l) + kb * 16) + CM_SUB * WT + h * 16, RS, true);
            acc = coopMatMulAddNV(a, cm_forward_block(l, kb), acc);
        }
        coopMatStoreNV(acc, s_out, out_at, RS / 2, true);
        subgroupBarrier();
        if ((CM_LANE >> 4) == h)
            [[unroll]] for (int o = 0; o < OUT_DIM; ++o) cm_z_out[o] = s_out[out_at + o * (RS / 2) + (CM_LANE & 15u)];
        subgroupBarrier(); // the next row block overwrites it
    }
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o) {
        cm_out[o] = 0.0;
        cm_dact_out[o] = 0.0;
    }
    [[unroll]] for (int o = 0; o < OUT_DIM; ++o) {
        const float z = mlp_params[B_OFF(l) + o] + cm_z_out[o];
        const float y = act_apply(OUTPUT_ACT, z);
        cm_dact_out[o] = act_derivative(OUTPUT_ACT, z, y);
        cm_out[o] = y;
    }
}

// Every invocation of the workgroup calls this (uniform control flow); the sample subgroups must
// have put their inputs. Leaves each sample's output in cm_out and d act / d z in cm_dact_out.
void cm_forward() {
    barrier();
    [[unroll]] for (int l = 0; l < LAYERS; ++l) {
        cm_forward_hidden(l);
        barrier();
    }
    if (CM_HOLDS_SAMPLES) cm_forward_output();
}

// ---- The step's gradient sums of this subgroup's blocks: of matrix l < LAYERS the row of blocks
// (CM_COL, ib), of the last matrix the block (0, CM_COL), over the subgroup's row blocks.
#define CM_GRAD_OFF(l) CM_FWD_OFF(l)
#define CM_GRAD_FRAGS (CM_FWD_OFF(LAYERS) + 1)
CM_F cm_grad[CM_GRAD_FRAGS];
float cm_bias_grad[MATRICES]; // lanes < 16: their column of the owned block's bias sums
uint cm_grad_row;             // the row of mlp_partials of the workgroup's part CM_PART

// `group`: the workgroup's index among the step's; its parts' rows follow each other.
void cm_grad_begin(uint group) {
    cm_grad_row = (group * CM_ROW_SPLIT + CM_PART) * uint(MLP_PARAMS);
    [[unroll]] for (int f = 0; f < CM_GRAD_FRAGS; ++f) cm_grad[f] = CM_F(0.0);
    [[unroll]] for (int l = 0; l < MATRICES; ++l) cm_bias_grad[l] = 0.0;
}

// delta: this sample's (y - t) * act'(z) per output (zero past OUT_DIM and outside the batch).
// Sample subgroups only, after cm_forward (their fp32 outputs have left the delta slice).
void cm_put_output_delta(float delta[OUT_PAD]) {
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o)
        s_slice[CM_SLICE(SLICE_COL(LAYERS + 1) + o) + CM_ROW] = float16_t(delta[o] * CM_LOSS_SCALE);
}

// Adds this subgroup's blocks of matrix l's weight gradient (delta^T X_l over the tile's rows) and
// its bias columns' sums.
void cm_weight_gradients(int l) {
    const bool last = l == LAYERS;
    const uint ob = last ? 0u : CM_COL;
    const uint blocks = last ? 1u : IN_PAD_L(l) / 16;
#ifndef ABLATE_WEIGHT_GRADIENTS
    [[unroll]] for (uint i0 = 0; i0 < CM_ROW_BLOCKS; ++i0) {
        const uint rb = CM_RB(i0);
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1) + ob * 16) + rb * 16, RS, false); // delta^T
        [[unroll]] for (uint i = 0; i < blocks; ++i) {
            CM_H b;
            coopMatLoadNV(b, s_slice, CM_SLICE(SLICE_COL(l) + (last ? CM_COL : i) * 16) + rb * 16, RS, true); // X_l
            cm_grad[CM_GRAD_OFF(l) + i] = coopMatMulAddNV(a, b, cm_grad[CM_GRAD_OFF(l) + i]);
        }
    }
#endif
#ifndef ABLATE_BIAS
    // Lane c < 16 sums column c of the owned block over the subgroup's rows (the last matrix's 16
    // columns are column block 0's); a column's rows are contiguous, read as 16-byte words.
    if (CM_LANE < 16u && (!last || CM_COL == 0u)) {
        const uint at = CM_SLICE(SLICE_COL(l + 1) + ob * 16 + CM_LANE) + CM_RB(0) * 16;
        float s = 0.0;
        [[unroll]] for (uint q = 0; q < CM_ROW_BLOCKS * 2; ++q) {
            const uvec4 w = s_slice4[at / 8u + q];
            [[unroll]] for (int k = 0; k < 4; ++k) {
                const vec2 h = unpackHalf2x16(w[k]);
                s += h.x + h.y;
            }
        }
        cm_bias_grad[l] += s;
    }
#endif
}

// dLoss/d(input of matrix l >= 1) for this subgroup's input block of every row, over slice l (its
// weight gradients taken by every subgroup); ReLU's derivative from the output it overwrites makes
// it matrix l - 1's delta.
void cm_input_gradients(int l) {
    [[dont_unroll]] for (uint rb0 = 0; rb0 < CM_ROW_BLOCKS; rb0 += CM_ROW_GROUP) {
        CM_F acc[CM_ROW_GROUP];
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) acc[g] = CM_F(0.0);
        [[unroll]] for (uint ob = 0; ob < OUT_PAD_L(l) / 16; ++ob) {
            const CM_H w = cm_input_gradient_block(l, ob);
            [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1) + ob * 16) + CM_RB(rb0 + g) * 16, RS, true); // delta
                acc[g] = coopMatMulAddNV(a, w, acc[g]);
            }
        }
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
            const uint at = CM_SLICE(SLICE_COL(l) + CM_COL * 16) + CM_RB(rb0 + g) * 16;
            CM_H dx = CM_H(acc[g]), y;
            coopMatLoadNV(y, s_slice, at, RS, true);
            for (int i = 0; i < dx.length(); ++i) dx[i] = y[i] > float16_t(0.0) ? dx[i] : float16_t(0.0);
            coopMatStoreNV(dx, s_slice, at, RS, true);
        }
    }
}

// This sample subgroup's rows of dLoss/d(encoding inputs) (the first CM_ENC_BLOCKS blocks) over
// slice 0: delta_0 W_0, W_0's blocks from memory (once a tile).
void cm_encoding_input_gradients() {
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        const uint r0 = CM_SUB * WT + h * 16;
        [[unroll]] for (uint ib = 0; ib < CM_ENC_BLOCKS; ++ib) {
            CM_F acc = CM_F(0.0);
            [[unroll]] for (uint ob = 0; ob < HIDDEN / 16; ++ob) {
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(1) + ob * 16) + r0, RS, true); // delta_0
                acc = coopMatMulAddNV(a, cm_load_block(0, ob, ib), acc);
            }
            coopMatStoreNV(CM_H(acc), s_slice, CM_SLICE(ib * 16) + r0, RS, true);
        }
    }
}

// Backward over the tile after the sample subgroups' cm_put_output_delta; every invocation calls
// it. Returns (sample subgroups) this sample's dLoss/d(encoding input), fp32, unscaled.
void cm_backward(float grad_scale, out float dx[ENC_GRAD_DIM]) {
    barrier(); // every sample's deltas are in
    [[unroll]] for (int l = LAYERS; l >= 1; --l) {
        cm_weight_gradients(l);
        barrier(); // slice l is read by every subgroup's weight gradients before it is overwritten
        cm_input_gradients(l);
        barrier();
    }
    cm_weight_gradients(0);
    barrier(); // ... and slice 0 by matrix 0's
    [[unroll]] for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = 0.0;
    if (CM_HOLDS_SAMPLES) {
        cm_encoding_input_gradients();
        subgroupBarrier();
        [[unroll]] for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = float(s_slice[CM_SLICE(c) + CM_ROW]) * grad_scale;
    }
}

// Stores the step's sums, times `scale`, into the workgroup's row: each subgroup its blocks and
// bias columns, which together are every entry of the row (padding included, so the row needs no
// clearing between steps).
void cm_write_gradients(float scale) {
    [[unroll]] for (int l = 0; l < MATRICES; ++l) {
        const bool last = l == LAYERS;
        const uint blocks = last ? 1u : IN_PAD_L(l) / 16;
        [[unroll]] for (uint i = 0; i < blocks; ++i) {
            const uint ob = last ? 0u : CM_COL, ib = last ? CM_COL : i;
            CM_F acc = cm_grad[CM_GRAD_OFF(l) + i] * scale;
            coopMatStoreNV(acc, mlp_partials, cm_grad_row + W_OFF(l) + ob * 16 * IN_PAD_L(l) + ib * 16,
                           IN_PAD_L(l), false);
        }
        if (CM_LANE < 16u && (!last || CM_COL == 0u))
            mlp_partials[cm_grad_row + B_OFF(l) + (last ? 0u : CM_COL * 16) + CM_LANE] = cm_bias_grad[l] * scale;
    }
}

// The subgroups' losses, added in a fixed order into the workgroup's partials (one a part, as
// its gradient rows). Every invocation.
void cm_write_loss(float loss, uint group) {
    loss = subgroupAdd(loss);
    if (subgroupElect()) s_loss_sub[CM_SUB] = loss;
    barrier();
    if (gl_LocalInvocationIndex < CM_ROW_SPLIT) {
        const uint part = gl_LocalInvocationIndex;
        float sum = 0.0;
        [[unroll]] for (uint s = 0; s < CM_COLUMN_BLOCKS; ++s) sum += s_loss_sub[part * CM_COLUMN_BLOCKS + s];
        loss_partials[group * CM_ROW_SPLIT + part] = sum;
    }
}

#endif
