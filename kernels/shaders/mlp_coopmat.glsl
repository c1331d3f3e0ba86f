// The MLP on tensor cores through GL_NV_cooperative_matrix: fp16 operands, fp32 accumulation.
//
// Each subgroup (32 invocations, one sample each) takes its own tiles of 32 samples through the
// whole MLP. A tile's activations live in the subgroup's private part of shared memory, so the
// layers are separated by subgroup barriers only: no workgroup barrier inside a tile, and a
// subgroup waiting on memory never stalls the others. The workgroup shares just the fp16 weights,
// loaded once (cm_load_weights, then one barrier).
//
// A subgroup's shared memory holds its tile feature-major ("slices": column c is
// s_slice[base + c * WS + sample]), so each invocation touches its own sample with conflict-free
// strides and the same memory serves as the row-major or column-major operand of every product:
//   slice 0            inputs of matrix 0 (IN_PAD wide, written by the encoding)
//   slice l (1..L)     outputs of matrix l-1 after the activation = inputs of matrix l (HIDDEN wide)
//   slice L+1          dLoss/dz at the outputs of the last matrix (OUT_PAD wide)
// Backward runs in place: once matrix l's weight gradient is taken, its input slice l is free and
// receives dLoss/d(input), which the activation derivative turns into the delta of matrix l-1.
// The last matrix's pre-activations stay fp32 (through s_out) so the prediction keeps full precision.
//
// Training (CM_TRAINING): the weight gradients of every tile a subgroup takes in a step are summed
// in fp32 accumulator fragments it keeps in registers (CM_GRADS_IN_REGISTERS, for the narrow MLPs
// whose fragments fit) or in its own row of the partials buffer (wider MLPs); either way nothing
// is written per tile, and cm_write_gradients stores the step's sums once.
//
// Gradient range: deltas travel in fp16 as (y - t) * act'(z) * CM_LOSS_SCALE, the per-sample error
// times a constant (2^7) that lifts small errors out of fp16's subnormal range; the 2 / (batch * out)
// mean-squared-error factor and 1 / CM_LOSS_SCALE are applied in fp32 to the accumulated sums
// (weight and bias gradients, encoding gradients). Max |delta| at the output is 0.25 * 2^7 = 32 for
// a sigmoid, far inside fp16's 65504.
//
// The including kernel declares `mlp_params` (fp32 master weights, readable) and, for training,
// `mlp_partials`; it enables GL_NV_cooperative_matrix, GL_KHR_memory_scope_semantics,
// GL_EXT_shader_explicit_arithmetic_types_float16, GL_KHR_shader_subgroup_{basic,arithmetic} and
// GL_EXT_control_flow_attributes (loops over layers and blocks are unrolled so per-layer register
// arrays stay in registers). Subgroups are 32 wide (the host requires it for this path).

#define CM_H fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define CM_F fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define CM_LOSS_SCALE FP16_DELTA_SCALE

#define WT 32                 // samples per subgroup tile: one per invocation
#define CM_WARPS (TILE / WT)  // subgroups per workgroup
// The shared memory's sizes and strides come from the host (tile_memory.hpp's SubgroupTileLayout).
#define WS CM_SLICE_STRIDE    // fp16 slice stride: a multiple of 8 halves keeps 16x16 blocks 16-byte aligned
#define WOS CM_OUT_STRIDE     // fp32 output stride (one 16-sample row block at a time), likewise
#define SLICE_COL(l) ((l) == 0 ? 0 : IN_PAD + ((l) - 1) * HIDDEN)
#define SLICE_COLS CM_SLICE_COLUMNS // a subgroup's tile's columns

// The fp16 weights: a copy in shared memory (WEIGHTS_IN_SHARED, loaded by cm_load_weights), or,
// for MLPs whose weights and tiles together outgrow shared memory (width 128, deep SIRENs), read
// by the products straight from the fp16 copy the optimizer keeps in device memory (binding
// CM_WEIGHTS_BINDING; the including kernel enables GL_EXT_shader_16bit_storage).
// Every shared array is a multiple of 16 bytes: cooperative-matrix loads and stores need 16-byte
// aligned addresses, and the arrays lie one after another.
#if !WEIGHTS_IN_SHARED
layout(std430, binding = CM_WEIGHTS_BINDING) readonly buffer MlpWeights16 { float16_t mlp_w16[]; };
#endif
// The fp32 biases sit beside the weights: in shared memory with them, else read from the fp32
// master copy (binding 0), which leaves shared memory to the tiles (width 128: two subgroups'
// tiles fit 48 KiB only without the biases).
#define CM_BIAS_STRIDE max(HIDDEN, OUT_PAD)           // the widest matrix output
// CM_SHARED_BLOCKS (GL_EXT_shared_memory_block, where the device has explicit workgroup memory
// layouts): the same arrays in one block, the slices first, and two more blocks over the slices:
// as 16-byte words, so that a column of a tile (its samples, contiguous) is read in four loads,
// and as floats, so that the last matrix's fp32 outputs pass through the tile's delta slice
// (free until the deltas are written) instead of an array of their own.
// CM_SLICE_HALVES: every subgroup's tile's slices; CM_OUT_FLOATS: every subgroup's last matrix's
// output, fp32, 16 rows (without the blocks); CM_BIAS_FLOATS: the fp32 biases, matrix l's at
// l * CM_BIAS_STRIDE.
#if CM_SHARED_BLOCKS
shared CmShared {
    float16_t s_slice[CM_SLICE_HALVES];
#if WEIGHTS_IN_SHARED
    float16_t s_w16[MLP_PARAMS]; // fp16 copy of the weights
    float s_bias[CM_BIAS_FLOATS];
#endif
};
shared CmSliceQuads { uvec4 s_slice4[CM_SLICE_HALVES / 8]; };
shared CmSliceFloats { float s_out[CM_SLICE_HALVES / 2]; };
#else
#if WEIGHTS_IN_SHARED
shared float16_t s_w16[MLP_PARAMS]; // fp16 copy of the weights
shared float s_bias[CM_BIAS_FLOATS];
#endif
shared float16_t s_slice[CM_SLICE_HALVES];
shared float s_out[CM_OUT_FLOATS];
#endif
#if WEIGHTS_IN_SHARED
#define CM_W s_w16
#define CM_BIAS_ARRAY s_bias
#define CM_BIAS_AT(l, o) (uint(l) * CM_BIAS_STRIDE + uint(o))
#else
#define CM_W mlp_w16
#define CM_BIAS_ARRAY mlp_params
#define CM_BIAS_AT(l, o) (uint(B_OFF(l)) + uint(o))
#endif

#define CM_LANE gl_SubgroupInvocationID
#define CM_SLICE(c) (gl_SubgroupID * (SLICE_COLS * WS) + uint(c) * WS) // column c of this subgroup's tile
// The last matrix's fp32 output o: over the delta slice (CM_SHARED_BLOCKS), else in s_out's own rows.
#define CM_OUT(o) (bool(CM_SHARED_BLOCKS) ? CM_SLICE(SLICE_COL(LAYERS + 1)) / 2u + uint(o) * WOS \
                                          : gl_SubgroupID * (OUT_PAD * WOS) + uint(o) * WOS)

#ifdef CM_TRAINING
// Per invocation, d act / d z at each matrix's outputs, kept for the backward pass (hidden ReLU
// layers need none: see CM_FUSED_RELU).
float cm_dact_hidden[LAYERS][HIDDEN];
float cm_dact_out[OUT_PAD];
#endif
float cm_out[OUT_PAD];         // per invocation: the network output
float cm_z_out[OUT_PAD];       // per invocation: the last matrix's product, before its bias

// The fp32 master weights as vec4s (the same binding as mlp_params, 0): with 16-aligned widths
// every matrix and bias holds a multiple of 16 floats.
layout(std430, binding = 0) readonly buffer MlpParams4 { vec4 mlp_params4[]; };

// Every invocation of the workgroup calls this, then passes a barrier(). Four vec4 loads are in
// flight before their stores: a loop of one float at a time waited on memory ~110 times per
// invocation for a width-64 MLP, longer than the rest of a step at batch 2^16.
void cm_load_weights() {
#if WEIGHTS_IN_SHARED
    const uint quads = MLP_PARAMS / 4;
    for (uint i = gl_LocalInvocationID.x; i < quads; i += 4 * TILE) {
        vec4 v[4];
        [[unroll]] for (uint k = 0; k < 4; ++k) {
            const uint q = i + k * TILE;
            v[k] = q < quads ? mlp_params4[q] : vec4(0.0);
        }
        [[unroll]] for (uint k = 0; k < 4; ++k) {
            const uint q = i + k * TILE;
            if (q < quads)
                [[unroll]] for (uint c = 0; c < 4; ++c) s_w16[4 * q + c] = float16_t(v[k][c]);
        }
    }
    for (uint i = gl_LocalInvocationID.x; i < MATRICES * CM_BIAS_STRIDE; i += TILE) {
        const uint l = i / CM_BIAS_STRIDE, o = i % CM_BIAS_STRIDE;
        s_bias[i] = o < OUT_PAD_L(l) ? mlp_params[B_OFF(l) + o] : 0.0;
    }
#endif
}

void cm_put_input(float x[IN_PAD]) {
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) s_slice[CM_SLICE(i) + CM_LANE] = float16_t(x[i]);
}

// A matrix's 16x16 blocks: CM_OB(l) x CM_IB(l), block (ob, ib) the fragment CM_FRAG_OFF(l) +
// ob * CM_IB(l) + ib of the MLP's CM_FRAGS (weight blocks and weight-gradient sums alike).
#define CM_OB(l) (OUT_PAD_L(l) / 16)
#define CM_IB(l) (IN_PAD_L(l) / 16)
#define CM_FRAG_OFF(l) ((l) == 0 ? 0 : (HIDDEN / 16) * (IN_PAD / 16) + ((l) - 1) * (HIDDEN / 16) * (HIDDEN / 16))
#define CM_FRAGS (CM_FRAG_OFF(LAYERS) + CM_OB(LAYERS) * CM_IB(LAYERS))

// Hidden ReLU layers take their bias and activation on the accumulator itself: the bias enters
// as the accumulator's starting value (a load with stride 0 repeats the bias row in every row) and
// ReLU, which does not depend on an element's position, is applied element by element. The
// backward pass reads ReLU's derivative back from the stored output (y > 0 exactly where z > 0).
// Other activations (and the last matrix) go through the per-sample path (cm_activate).
#define CM_FUSED_RELU (HIDDEN_ACT == ACT_RELU)

// CM_WEIGHT_FRAGMENTS (training, small MLPs): every weight block is loaded once per step into
// registers (from the shared copy, or from the fp16 copy in memory), in both forms the products use (W^T for the
// forward pass, W for the input gradients), with the hidden ReLU matrices' bias rows, instead
// of from shared memory for every 16 rows of every tile. The loops over a matrix's output (forward) or
// input (backward) blocks are then unrolled, so each block is a register, not an indexed array.
CM_H cm_wt[CM_FRAGS];                  // block (nb, kb) of W_l^T: the forward's operand
CM_H cm_wn[CM_FRAGS];                  // block (ob, ib) of W_l: the input gradients' operand
// CM_BIAS_FRAGMENTS (hidden ReLU matrices): their bias rows held as accumulator fragments too, or
// loaded from shared memory for each row block (the host decides: held rows cost registers).
CM_F cm_bias_rows[LAYERS * (HIDDEN / 16)]; // hidden matrix l's bias, block nb, in every row
#define CM_HOLDS_BIAS_ROWS (bool(CM_WEIGHT_FRAGMENTS) && CM_FUSED_RELU && bool(CM_BIAS_FRAGMENTS))
#if CM_WEIGHT_FRAGMENTS
#define CM_BLOCK_LOOP [[unroll]]
// b = matrix l's block (ob, ib): the fragment `held` keeps of it (cm_wt: W^T, cm_wn: W), or,
// without the fragments, loaded (transposed: as W^T).
#define CM_WEIGHT_BLOCK(b, held, l, ob, ib, transposed) b = held[CM_FRAG_OFF(l) + ob * CM_IB(l) + ib]
#else
#define CM_BLOCK_LOOP [[dont_unroll]]
#define CM_WEIGHT_BLOCK(b, held, l, ob, ib, transposed) \
    coopMatLoadNV(b, CM_W, W_OFF(l) + ob * 16 * IN_PAD_L(l) + ib * 16, IN_PAD_L(l), transposed)
#endif

// After cm_load_weights' barrier.
void cm_load_weight_fragments() {
    if (!bool(CM_WEIGHT_FRAGMENTS)) return;
    [[unroll]] for (int l = 0; l < MATRICES; ++l)
        [[unroll]] for (uint ob = 0; ob < CM_OB(l); ++ob)
            [[unroll]] for (uint ib = 0; ib < CM_IB(l); ++ib) {
                const uint at = W_OFF(l) + ob * 16 * IN_PAD_L(l) + ib * 16;
                coopMatLoadNV(cm_wt[CM_FRAG_OFF(l) + ob * CM_IB(l) + ib], CM_W, at, IN_PAD_L(l), true);
                coopMatLoadNV(cm_wn[CM_FRAG_OFF(l) + ob * CM_IB(l) + ib], CM_W, at, IN_PAD_L(l), false);
            }
    if (CM_HOLDS_BIAS_ROWS)
        [[unroll]] for (int l = 0; l < LAYERS; ++l)
            [[unroll]] for (uint nb = 0; nb < HIDDEN / 16; ++nb)
                coopMatLoadNV(cm_bias_rows[l * (HIDDEN / 16) + nb], CM_BIAS_ARRAY, CM_BIAS_AT(l, nb * 16), 0, false);
}

// Rows r0..r0+15 of X_l (slice l) times the output block nb of W_l^T, added to acc.
void cm_product_block(int l, uint nb, uint r0, inout CM_F acc) {
    [[unroll]] for (uint kb = 0; kb < IN_PAD_L(l) / 16; ++kb) {
        CM_H a, b;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l) + kb * 16) + r0, WS, true);
        CM_WEIGHT_BLOCK(b, cm_wt, l, nb, kb, true);
        acc = coopMatMulAddNV(a, b, acc);
    }
}

// Pre-activations of hidden matrix l < LAYERS for the tile: X_l (slice l) times W_l^T (plus, fused,
// bias and ReLU), into slice l + 1.
void cm_matmul_forward(int l) {
    const bool fused = CM_FUSED_RELU;
    CM_BLOCK_LOOP for (uint nb = 0; nb < OUT_PAD_L(l) / 16; ++nb) {
        [[dont_unroll]] for (uint r0 = 0; r0 < WT; r0 += 16) {
            CM_F acc = CM_F(0.0);
            if (CM_HOLDS_BIAS_ROWS) acc = cm_bias_rows[l * (HIDDEN / 16) + nb];
            else if (fused) coopMatLoadNV(acc, CM_BIAS_ARRAY, CM_BIAS_AT(l, nb * 16), 0, false);
            cm_product_block(l, nb, r0, acc);
            if (fused)
                for (int i = 0; i < acc.length(); ++i) acc[i] = max(acc[i], 0.0);
            coopMatStoreNV(CM_H(acc), s_slice, CM_SLICE(SLICE_COL(l + 1) + nb * 16) + r0, WS, true);
        }
    }
}

// The last matrix's products for the tile, fp32, into cm_z_out: one 16-sample row block at a
// time passes through s_out, so s_out holds 16 rows, not 32 (shared memory is what limits the
// subgroups a workgroup holds: bench/archive/RESULTS.md, "subgroups a workgroup, the next tile's
// loads in flight").
void cm_matmul_output() {
    const int l = LAYERS;
    [[unroll]] for (uint r0 = 0; r0 < WT; r0 += 16) {
        CM_BLOCK_LOOP for (uint nb = 0; nb < OUT_PAD_L(l) / 16; ++nb) {
            CM_F acc = CM_F(0.0);
            cm_product_block(l, nb, r0, acc);
            coopMatStoreNV(acc, s_out, CM_OUT(nb * 16), WOS, true);
        }
        subgroupBarrier();
        if ((CM_LANE & ~15u) == r0)
            [[unroll]] for (int o = 0; o < OUT_L(l); ++o) cm_z_out[o] = s_out[CM_OUT(o) + (CM_LANE & 15u)];
        subgroupBarrier(); // the next row block overwrites s_out
    }
}

// Bias + activation for this invocation's sample, in place (hidden) or into cm_out (last matrix).
void cm_activate(int l) {
    if (CM_FUSED_RELU && l < LAYERS) return; // done on the accumulator (cm_matmul_forward)
    const int kind = l == LAYERS ? OUTPUT_ACT : HIDDEN_ACT;
    [[unroll]] for (int o = 0; o < OUT_L(l); ++o) {
        const uint idx = CM_SLICE(SLICE_COL(l + 1) + o) + CM_LANE;
        float z = CM_BIAS_ARRAY[CM_BIAS_AT(l, o)] + (l < LAYERS ? float(s_slice[idx]) : cm_z_out[o]);
        const float omega = OMEGA_L(l);
        z *= omega;
        float y = act_apply(kind, z);
#ifdef CM_TRAINING
        if (l == LAYERS) cm_dact_out[o] = omega * act_derivative(kind, z, y);
        else if (!CM_FUSED_RELU) cm_dact_hidden[l][o] = omega * act_derivative(kind, z, y);
#endif
        if (l < LAYERS) s_slice[idx] = float16_t(y);
        else cm_out[o] = y;
    }
}

// The subgroup's inputs must be in slice 0 (cm_put_input). Leaves every layer's input in its slice
// and this invocation's output in cm_out.
void cm_forward() {
    subgroupBarrier();
    [[unroll]] for (int l = 0; l < MATRICES; ++l) {
        if (l < LAYERS) cm_matmul_forward(l);
        else cm_matmul_output();
        subgroupBarrier();
        cm_activate(l);
        subgroupBarrier();
    }
}

#ifdef CM_TRAINING
// ---- The step's gradient sums of this subgroup.
// Bias sums: invocation i keeps outputs i, i + 32, ... of every matrix.
#define CM_BIAS_SLOTS ((CM_BIAS_STRIDE + WT - 1) / WT)

CM_F cm_grad[CM_FRAGS]; // the sums, where CM_GRADS_IN_REGISTERS
float cm_bias_grad[MATRICES][CM_BIAS_SLOTS];
uint cm_grad_row;     // this subgroup's row of mlp_partials (MLP_PARAMS floats)
bool cm_grad_first;   // no tile added yet (the row in memory holds nothing of this step)

void cm_grad_begin(uint row) {
    cm_grad_row = row * uint(MLP_PARAMS);
    cm_grad_first = true;
    if (bool(CM_GRADS_IN_REGISTERS))
        [[unroll]] for (int f = 0; f < CM_FRAGS; ++f) cm_grad[f] = CM_F(0.0);
    [[unroll]] for (int l = 0; l < MATRICES; ++l)
        [[unroll]] for (int j = 0; j < CM_BIAS_SLOTS; ++j) cm_bias_grad[l][j] = 0.0;
}

// The step's sums so far of matrix l's block (ob, ib), whose place in the partial row is `at`.
CM_F cm_grad_sum(int l, uint ob, uint ib, uint at) {
    CM_F acc = CM_F(0.0);
    if (bool(CM_GRADS_IN_REGISTERS)) acc = cm_grad[CM_FRAG_OFF(l) + ob * CM_IB(l) + ib];
    else if (!cm_grad_first) coopMatLoadNV(acc, mlp_partials, at, IN_PAD_L(l), false);
    return acc;
}

// delta: this sample's (y - t) * act'(z) per output (zero past OUT_DIM and outside the batch).
void cm_put_output_delta(float delta[OUT_PAD]) {
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o)
        s_slice[CM_SLICE(SLICE_COL(LAYERS + 1) + o) + CM_LANE] = float16_t(delta[o] * CM_LOSS_SCALE);
}

// Adds the tile's weight and bias gradients of matrix l (delta^T X_l, column sums of delta).
void cm_weight_gradients(int l) {
    [[unroll]] for (uint ob = 0; ob < CM_OB(l); ++ob) {
        [[unroll]] for (uint ib = 0; ib < CM_IB(l); ++ib) {
            const uint at = cm_grad_row + W_OFF(l) + ob * 16 * IN_PAD_L(l) + ib * 16;
            CM_F acc = cm_grad_sum(l, ob, ib, at);
            [[unroll]] for (uint k0 = 0; k0 < WT; k0 += 16) {
                CM_H a, b;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1) + ob * 16) + k0, WS, false); // delta^T
                coopMatLoadNV(b, s_slice, CM_SLICE(SLICE_COL(l) + ib * 16) + k0, WS, true);      // X_l
                acc = coopMatMulAddNV(a, b, acc);
            }
            if (bool(CM_GRADS_IN_REGISTERS)) cm_grad[CM_FRAG_OFF(l) + ob * CM_IB(l) + ib] = acc;
            else coopMatStoreNV(acc, mlp_partials, at, IN_PAD_L(l), false);
        }
    }
    // Bias: invocation i sums output i's column over the tile, starting at a rotated row so the
    // 32 invocations read 32 different banks.
    [[unroll]] for (int j = 0; j < CM_BIAS_SLOTS; ++j) {
        const uint o = CM_LANE + uint(j * WT);
        if (o < uint(OUT_L(l))) {
            const uint col = CM_SLICE(SLICE_COL(l + 1) + o);
            float s = 0.0;
#if CM_SHARED_BLOCKS
            // The column's 32 samples as four 16-byte words (WS keeps a column 16-byte aligned;
            // 8 neighbouring invocations' words fall in distinct banks).
            [[unroll]] for (uint q = 0; q < WT / 8; ++q) {
                const uvec4 w = s_slice4[col / 8u + q];
                [[unroll]] for (int k = 0; k < 4; ++k) {
                    const vec2 h = unpackHalf2x16(w[k]);
                    s += h.x + h.y;
                }
            }
#else
            for (uint k = 0; k < WT; ++k) s += float(s_slice[col + ((k + CM_LANE) & (WT - 1))]);
#endif
            cm_bias_grad[l][j] += s;
        }
    }
}

// dLoss/d(input of matrix l) = delta W_l for the first in_blocks * 16 inputs, written over slice l
// (fp16, still carrying CM_LOSS_SCALE). Slice l must no longer be needed (weight gradient taken).
// For a hidden ReLU input (l > 0, fused) the result is already the delta of matrix l - 1: ReLU's
// derivative is read from the layer's output, the block about to be overwritten (same matrix type,
// so element i of both is the same position).
void cm_input_gradients(int l, uint in_blocks) {
    const bool fused = CM_FUSED_RELU && l > 0;
    CM_BLOCK_LOOP for (uint ib = 0; ib < in_blocks; ++ib) {
        [[dont_unroll]] for (uint r0 = 0; r0 < WT; r0 += 16) {
            CM_F acc = CM_F(0.0);
            [[unroll]] for (uint ob = 0; ob < CM_OB(l); ++ob) {
                CM_H a, b;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1) + ob * 16) + r0, WS, true); // delta
                CM_WEIGHT_BLOCK(b, cm_wn, l, ob, ib, false); // W_l
                acc = coopMatMulAddNV(a, b, acc);
            }
            const uint at = CM_SLICE(SLICE_COL(l) + ib * 16) + r0;
            CM_H dx = CM_H(acc);
            if (fused) {
                CM_H y;
                coopMatLoadNV(y, s_slice, at, WS, true);
                for (int i = 0; i < dx.length(); ++i) dx[i] = y[i] > float16_t(0.0) ? dx[i] : float16_t(0.0);
            }
            coopMatStoreNV(dx, s_slice, at, WS, true);
        }
    }
}

// Backward over the tile after cm_put_output_delta. `grad_scale` turns the scaled per-sample
// deltas into the loss's gradient. Returns this sample's dLoss/d(encoding input) for the first
// ENC_GRAD_DIM inputs, fp32, unscaled.
void cm_backward(float grad_scale, out float dx[ENC_GRAD_DIM]) {
    subgroupBarrier();
    [[unroll]] for (int l = LAYERS; l >= 0; --l) {
        cm_weight_gradients(l);
        subgroupBarrier(); // slice l is read by the weight gradient before it is overwritten
        cm_input_gradients(l, l > 0 ? uint(CM_IB(l)) : uint((ENC_GRAD_DIM + 15) / 16));
        subgroupBarrier();
        if (!CM_FUSED_RELU && l > 0) {
            [[unroll]] for (int i = 0; i < HIDDEN; ++i) {
                const uint idx = CM_SLICE(SLICE_COL(l) + i) + CM_LANE;
                s_slice[idx] = float16_t(float(s_slice[idx]) * cm_dact_hidden[l - 1][i]);
            }
            subgroupBarrier();
        }
    }
    cm_grad_first = false;
    [[unroll]] for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = float(s_slice[CM_SLICE(c) + CM_LANE]) * grad_scale;
}

// Stores the step's sums, times `scale`, into this subgroup's row (every entry of it, padding
// included, so the row needs no clearing between steps).
void cm_write_gradients(float scale) {
    [[unroll]] for (int l = 0; l < MATRICES; ++l) {
        [[unroll]] for (uint ob = 0; ob < CM_OB(l); ++ob) {
            [[unroll]] for (uint ib = 0; ib < CM_IB(l); ++ib) {
                const uint at = cm_grad_row + W_OFF(l) + ob * 16 * IN_PAD_L(l) + ib * 16;
                CM_F acc = cm_grad_sum(l, ob, ib, at);
                acc = acc * scale;
                coopMatStoreNV(acc, mlp_partials, at, IN_PAD_L(l), false);
            }
        }
        [[unroll]] for (int j = 0; j < CM_BIAS_SLOTS; ++j) {
            const uint o = CM_LANE + uint(j * WT);
            if (o < uint(OUT_PAD_L(l))) mlp_partials[cm_grad_row + B_OFF(l) + o] = cm_bias_grad[l][j] * scale;
        }
    }
}

// The subgroup's loss, its partial `row`.
void cm_write_loss(float loss, uint row) {
    loss = subgroupAdd(loss);
    if (subgroupElect()) loss_partials[row] = loss;
}
#endif
