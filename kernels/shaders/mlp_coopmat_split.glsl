// The training step's MLP on tensor cores for ReLU MLPs of hidden width 32 and more (64 and more
// in one part, 32 in two or three: CM_ROW_SPLIT): the workgroup's subgroups share one tile of
// CM_ROWS samples. The narrow ends of the MLP (the first matrix's forward product, the last
// matrix's products) are taken by rows: each sample subgroup
// (the first CM_ROWS / 32) its own 32 samples, which needs no other subgroup's work and so no
// workgroup barrier. The wide middle is taken by columns: subgroup s owns block s % (HIDDEN / 16)
// (columns 16s..16s+15) of the hidden matrices' outputs after the first and of the first
// matrix's weight gradient, and input block s % (HIDDEN / 16) of the hidden matrices' input and
// weight gradients after the first, for all the tile's rows or, with CM_ROW_SPLIT parts, for part
// s / (HIDDEN / 16) of them.
//
// Why not mlp_coopmat.glsl's tiles of one subgroup each: a subgroup that takes a 64-wide MLP
// alone needs every weight block and every gradient sum of the MLP (24 fragments of sums, 192
// registers a lane), and 48 KiB of shared memory holds only three such subgroups' tiles, one
// workgroup a multiprocessor: three subgroups to keep four tensor cores busy, each with two
// 16-row blocks to hide a product's latency behind. Here a subgroup keeps only its own blocks'
// weights and sums, works on CM_ROWS / 16 row blocks at once in the middle, and every
// sub-partition of the multiprocessor has a subgroup. The price is a workgroup barrier where a
// phase reads what other subgroups wrote: 2 * LAYERS of them a tile.
//
// Shared memory holds the tile feature-major as in mlp_coopmat.glsl (column c of the tile is
// s_slice[c * RS + row]): slice 0 the encoding's outputs (IN_PAD), slices 1..LAYERS the hidden
// outputs (HIDDEN each), slice LAYERS + 1 the output deltas (OUT_PAD = 16), with backward in place.
// A tile's phases (| a workgroup barrier):
//   rows: inputs, matrix 0 (bias and ReLU on the accumulator) into slice 1 |
//   columns: hidden matrix l = 1..LAYERS-1, output block s of every row block, into slice l + 1 |
//   rows: the last matrix, fp32 through the subgroup's own rows of the delta slice; activation,
//     loss and deltas per sample; the last matrix's weight-gradient sums over its own rows and its
//     input gradients (ReLU's derivative read from the output they overwrite) over slice LAYERS |
//   columns: for l = LAYERS-1 down to 1 (| between them), the input-gradient block s of every row
//     over slice l and the weight gradients of input block s (X_l^T delta), each delta block
//     loaded once for both products; the blocks of slice l a subgroup reads and writes are its
//     own, so none waits for another; then matrix 0's weight gradients over the subgroup's own
//     block of its deltas |
//   rows: the encoding's input gradients over slice 0, read back per sample.
// (CM_ENDS_BY_COLUMNS, CM_STAGE_INPUTS and CM_LATE_ENCODING, below, change the ends: width 128's.)
// The fp16 weights come from the copy in device memory (binding CM_WEIGHTS_BINDING), held in
// registers for the step (the blocks a subgroup's products use; the first matrix's only with
// CM_FIRST_WEIGHT_FRAGMENTS, else loaded per tile); matrix 0's input-gradient blocks are loaded
// per tile. The fp32 biases come from the master copy (binding
// 0). Bias gradients are summed on the tensor cores too (cm_bias_sums).
//
// Gradient scaling is mlp_coopmat.glsl's: fp16 deltas carry CM_LOSS_SCALE, the fp32 sums are
// scaled once when written. The workgroup writes one partial row and one loss partial for each
// part, every entry by one subgroup; the sample subgroups' sums of the last matrix are added in
// shared memory, in a fixed order, at the step's end.
// CM_ROW_SPLIT: subgroups a column block (each taking its share of the tile's row blocks).
// CM_ENDS_BY_COLUMNS: the first matrix's forward product, the last matrix's backward products and
// the encoding's input gradients by columns too (every subgroup an output block or a block of
// rows), for tiles whose sample subgroups are fewer than the subgroups (width 128: 2 of 8, which
// took those phases alone while 6 waited). Only the last matrix's forward product stays by rows.
// Two more workgroup barriers a tile.
// CM_ENC_INPUTS_BY_ROWS: with the ends by columns, the encoding's input gradients still by rows:
// each sample subgroup its own, so no workgroup barrier follows them (one a tile fewer; the host
// takes it where no late pass reads them by columns).
// CM_STAGE_INPUTS (the host's TrainTiling::stage_inputs; with the ends by columns, where the
// sample subgroups are at most half the subgroups): the next tile's encoded inputs are worked out
// by the subgroups after the sample ones (train_step.comp) while the sample subgroups take the
// last matrix's forward product, and left in a staging slice: the next tile's set of its inputs'
// columns (CM_STAGE_INPUTS, below), or copied into slice 0 at its start. The encoding's
// parameter loads then wait behind that product instead of ahead of the tile. The encoding's
// input gradients then go over slice 2 instead of slice 0: every read of it has passed by then
// (matrix 1's outputs, or with one hidden layer the delta slice) and the next tile writes it only
// after its first barriers, while the copy into slice 0 may come before the sample subgroups are
// done.
// CM_LATE_ENCODING (TrainTiling::late_encoding; with CM_STAGE_INPUTS, where the subgroups after
// the staging ones hold whole shares of the tile's samples): the encoding's backward pass of a
// tile is theirs too, during the next tile's last forward product (train_step.comp), from the
// input gradients the sample subgroups leave in IN_PAD columns of their own after the slices
// (CM_DX_COL), which nothing else writes.
// The encoding's input gradients of the tile's sample `row` as the products left them (CM_DX_COL),
// fp32, unscaled, into the float array `dx`: the sample subgroups' own (cm_backward), or the late
// subgroups' (cm_late_input_gradients).
#define CM_READ_INPUT_GRADIENTS(row, grad_scale, dx) \
    [[unroll]] for (int c_ = 0; c_ < ENC_GRAD_DIM; ++c_) dx[c_] = float(s_slice[CM_SLICE(CM_DX_COL + c_) + (row)]) * (grad_scale);

// With CM_STAGE_INPUTS the staged inputs are not copied into slice 0 at each tile's start; the
// encoding's outputs take two sets of IN_PAD columns instead, the tile's by its parity
// (CM_X0_COL: slice 0 or the staging columns from CM_STAGE_COL), and the staging subgroups
// write the other set. Nothing then writes the tile's inputs after its first barrier, so matrix
// 0's weight gradients, which read them, may run past the barrier after them (below).
#if CM_STAGE_INPUTS
#define CM_X0_COL_OF(tile) (((tile) & 1u) != 0u ? uint(CM_STAGE_COL) : 0u)
uint cm_x0_col; // the tile's encoding outputs' first column (cm_take_staged_inputs sets it)
#define CM_X0_COL cm_x0_col
#else
#define CM_X0_COL 0
#endif

#define CM_H fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define CM_F fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
// CM_NARROW_ENDS (the device has the 16x8x16 and 16x8x8 shapes): the MLP's narrow ends take
// 8-wide blocks where 8 columns hold them. CM_NARROW_OUT: at most 8 outputs (and 8 matrices: the
// bias sums' columns), whose last-matrix products are then 16 x 8 (its weight gradient taken
// transposed, inputs by outputs); CM_NARROW_IN: at most 8 inputs, the first matrix's products
// over 8 of them. Half the tensor-core work and half the operand loads of those products. With
// the ends by columns only the last matrix's forward product (the sample subgroups', which the
// others wait on) is narrow: CM_NARROW_LAST_FORWARD.
#define CM_NARROW_OUT (CM_NARROW_ENDS && !CM_ENDS_BY_COLUMNS && OUT_DIM <= 8 && MATRICES <= 8)
#define CM_NARROW_IN (CM_NARROW_ENDS && !CM_ENDS_BY_COLUMNS && IN_DIM <= 8)
#define CM_NARROW_LAST_FORWARD (CM_NARROW_ENDS && OUT_DIM <= 8)
// CM_NARROW_BIAS: the bias sums' fragment 16 outputs x 8 matrices (a column a matrix), its
// products 16x8x16: with the narrow ends by rows, and with the ends by columns wherever the model
// has at most 8 matrices. There it frees 4 registers a lane and halves those products, with the
// same sums (bench/archive/RESULTS.md, "width 128's bias sums in an 8-column fragment").
#define CM_NARROW_BIAS_FITS (CM_NARROW_ENDS && MATRICES <= 8)
#define CM_NARROW_BIAS (CM_NARROW_OUT || (CM_ENDS_BY_COLUMNS && CM_NARROW_BIAS_FITS))
// The last matrix's weight-gradient sums' fragment: narrow, transposed (block ib's 16 inputs x
// the 8 outputs).
#if CM_NARROW_OUT
#define CM_NARROW_OUT_BOOL true
#define CM_LAST_SUM CM_F8
#else
#define CM_NARROW_OUT_BOOL false
#define CM_LAST_SUM CM_F
#endif
#define CM_H8 fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> // 16 x 8: A of 16x8x8, B of 16x8x16
#define CM_HK8 fcoopmatNV<16, gl_ScopeSubgroup, 8, 8> // 8 x 8: B of 16x8x8
#define CM_F8 fcoopmatNV<32, gl_ScopeSubgroup, 16, 8> // 16 x 8 accumulator
#define CM_LOSS_SCALE FP16_DELTA_SCALE
// With the ends by columns, the wide phases' activation and input-gradient products (hidden width
// terms each, stored as fp16 anyway) summed in fp16 accumulators, as tiny-cuda-nn's fully fused
// MLP sums them: half the registers of fp32 ones, which width 128's phases are short of. The
// weight gradients (summed over the step), the MLP's ends and the encoding's input gradients stay
// fp32.
#if CM_ENDS_BY_COLUMNS
#define CM_ACC CM_H
#define CM_ACC_ZERO float16_t(0.0)
#else
#define CM_ACC CM_F
#define CM_ACC_ZERO 0.0
#endif

#define WT 32                          // samples per sample subgroup
#define CM_COLUMN_BLOCKS (HIDDEN / 16)
#define CM_SUBGROUPS (CM_COLUMN_BLOCKS * CM_ROW_SPLIT)
#define CM_SAMPLE_SUBGROUPS (CM_ROWS / WT)
#define CM_ROW_BLOCKS (CM_ROWS / (16 * CM_ROW_SPLIT)) // a subgroup's share of the tile's row blocks
#define RS CM_ROW_STRIDE               // halves a column (tile_memory.hpp, as every size below)
#define SLICE_COL(l) ((l) == 0 ? CM_X0_COL : IN_PAD + ((l) - 1) * HIDDEN)
#define SLICE_COLS CM_SLICE_COLUMNS
#define CM_SLICE(c) (uint(c) * RS)     // column c's first row
#define CM_ENC_BLOCKS ((ENC_GRAD_DIM + 15) / 16)
// CM_CHAINS: independent sums that the short phases every other subgroup waits on (the last
// matrix's forward product, a block of the encoding's input gradients) split their K blocks
// over, added at the end: with the ends by columns two, chains of HIDDEN / 32 products where one
// was HIDDEN / 16 long.
// CM_CHAINS comes from the host: two with the ends by columns (where the MLP has two column
// blocks or more), else one.
// Chains at..at + CM_CHAINS - 1 of the sums `acc` added into chain `at`, element by element
// (see cm_write_gradients).
#if CM_CHAINS > 1
#define CM_ADD_CHAINS(acc, at) \
    [[unroll]] for (uint c_ = 1; c_ < CM_CHAINS; ++c_) \
        for (int i_ = 0; i_ < acc[at].length(); ++i_) acc[at][i_] += acc[(at) + c_][i_];
#else
#define CM_ADD_CHAINS(acc, at)
#endif
// Row blocks a phase's products take at once: independent accumulators that hide each other's
// latency.
#define CM_ROW_GROUP min(CM_ROW_BLOCKS, 4)

#define cm_tile_barrier() barrier()

// The selectors follow the slices directly: a matrix load's rows must be 16-byte aligned (after
// the losses of one or two subgroups they were not, and the tensor cores read garbage).
shared CmShared {
    float16_t s_slice[CM_COLUMNS * RS];
    float16_t s_bias_select[16 * 16]; // row l: 1 in column l (cm_bias_selector)
    float s_loss_sub[CM_SUBGROUPS];
    CM_SHARED_EXTRA // the including kernel's own shared memory (every shared variable is in a block)
};
// fp32 over the slices: the last matrix's outputs (over the delta slice), the sums at the step's end
shared CmSliceFloats { float s_out[SLICE_COLS * RS / 2]; };

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
// The narrow ends' blocks: the last matrix's block kb as W^T, 16 inputs x its 8 outputs; its 8 x 8
// block (0, 2 ib + j) as W; the first matrix's 8 inputs x 8 outputs (2 nb + j) as W^T; its 16
// outputs ob x 8 inputs as W.
CM_H8 cm_load_last_t8(uint kb) {
    CM_H8 b;
    coopMatLoadNV(b, mlp_w16, CM_BLOCK_AT(LAYERS, 0, kb), IN_PAD_L(LAYERS), true);
    return b;
}
CM_HK8 cm_load_last_back8(uint ib, uint j) {
    CM_HK8 b;
    coopMatLoadNV(b, mlp_w16, CM_BLOCK_AT(LAYERS, 0, ib) + j * 8, IN_PAD_L(LAYERS), false);
    return b;
}
CM_HK8 cm_load_first_t8(uint nb, uint j) {
    CM_HK8 b;
    coopMatLoadNV(b, mlp_w16, CM_BLOCK_AT(0, nb, 0) + j * 8 * IN_PAD, IN_PAD, true);
    return b;
}
CM_H8 cm_load_first_back8(uint ob) {
    CM_H8 b;
    coopMatLoadNV(b, mlp_w16, CM_BLOCK_AT(0, ob, 0), IN_PAD, false);
    return b;
}
// The last matrix's forward block kb as W^T, 8 or 16 outputs wide, and its sums' fragment.
#if CM_NARROW_LAST_FORWARD
#define CM_LAST_FORWARD_BLOCK CM_H8
#define CM_LAST_FORWARD_SUM CM_F8
#define cm_load_last_forward(kb) cm_load_last_t8(kb)
#else
#define CM_LAST_FORWARD_BLOCK CM_H
#define CM_LAST_FORWARD_SUM CM_F
#define cm_load_last_forward(kb) cm_load_block_t(LAYERS, 0, kb)
#endif
// The encoding's input gradients delta_0 W_0 of input block ib: their sums' fragment, as fp16, and
// the first matrix's block (ob, ib) as W; over its 8 inputs where narrow (ib is then 0). The first
// matrix's weight-gradient sums take CM_FIRST_SUMS such fragments.
#if CM_NARROW_IN
#define CM_ENC_INPUT_SUM CM_F8
#define CM_ENC_INPUT_H CM_H8
#define CM_FIRST_SUMS 1
#define cm_load_first_back(ob, ib) cm_load_first_back8(ob)
#else
#define CM_ENC_INPUT_SUM CM_F
#define CM_ENC_INPUT_H CM_H
#define CM_FIRST_SUMS CM_IB0
#define cm_load_first_back(ob, ib) cm_load_block(0, ob, ib)
#endif

// The first matrix's blocks held too, else loaded for each tile (the host's choice by the
// registers the held fragments take).
#define CM_HOLDS_FIRST CM_FIRST_WEIGHT_FRAGMENTS
// The weight blocks a subgroup's products use: forward (W^T), matrix 0's (nb, kb) for every
// output block (rows), hidden matrix l's (CM_COL, kb) (columns), the last matrix's (0, kb) (rows);
// input gradients (W), hidden matrix l's (ob, CM_COL) (columns), the last matrix's (0, ib) (rows).
#define CM_IB0 (IN_PAD / 16)
// With the ends by columns, of the first matrix's forward blocks and the last matrix's
// input-gradient blocks a subgroup holds only those of its own column block, all that its column
// phases use: holding the last matrix's whole row and taking block CM_COL of it (no constant
// index) put width 128's kernel in local memory (bench/archive/RESULTS.md, "what every subgroup
// of width 128's tile waits on").
#define CM_HIDDEN_MATRICES (LAYERS > 1 ? LAYERS - 1 : 1) // matrices 1..LAYERS-1 (arrays of at least one)
// Each kind in an array of its own with constant bounds, so every index is a constant once the
// loops are unrolled (an array indexed otherwise lands in local memory).
#if CM_HOLDS_FIRST
#if CM_NARROW_IN
CM_HK8 cm_wfirst[CM_COLUMN_BLOCKS * 2];                // (2 nb + j) at 2 nb + j
#else
CM_H cm_wfirst[CM_COLUMN_BLOCKS * CM_IB0];             // (nb, kb) at nb * CM_IB0 + kb
#endif
#endif
CM_H cm_whidden[CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS]; // matrix l's (CM_COL, kb) at (l - 1) * blocks + kb
CM_H cm_whidden_back[CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS]; // matrix l's (ob, CM_COL)
CM_LAST_FORWARD_BLOCK cm_wlast[CM_COLUMN_BLOCKS];      // (0, kb); narrow: 8 outputs
#if CM_ENDS_BY_COLUMNS
CM_H cm_wlast_back_own;                                // (0, CM_COL)
CM_H cm_wfirst_own[CM_IB0];                            // matrix 0's (CM_COL, kb), as W^T
#elif CM_NARROW_OUT
CM_HK8 cm_wlast_back[CM_COLUMN_BLOCKS * 2];            // (0, 2 ib + j), 8 x 8
#else
CM_H cm_wlast_back[CM_COLUMN_BLOCKS];                  // (0, ib)
#endif

// Nothing of the weights lives in shared memory; the bias sums' selectors do (the step's barrier
// after this is theirs).
void cm_load_weights() {
    for (uint i = gl_LocalInvocationIndex; i < 256u; i += TILE) s_bias_select[i] = float16_t(i / 16u == i % 16u ? 1.0 : 0.0);
}

void cm_load_weight_fragments() {
#if CM_HOLDS_FIRST && CM_NARROW_IN
    [[unroll]] for (uint nb = 0; nb < CM_COLUMN_BLOCKS; ++nb)
        [[unroll]] for (uint j = 0; j < 2; ++j) cm_wfirst[nb * 2 + j] = cm_load_first_t8(nb, j);
#elif CM_HOLDS_FIRST
    [[unroll]] for (uint nb = 0; nb < CM_COLUMN_BLOCKS; ++nb)
        [[unroll]] for (uint kb = 0; kb < CM_IB0; ++kb) cm_wfirst[nb * CM_IB0 + kb] = cm_load_block_t(0, nb, kb);
#endif
    [[unroll]] for (int l = 1; l < LAYERS; ++l)
        [[unroll]] for (uint i = 0; i < CM_COLUMN_BLOCKS; ++i) {
            cm_whidden[(l - 1) * CM_COLUMN_BLOCKS + i] = cm_load_block_t(l, CM_COL, i);
            cm_whidden_back[(l - 1) * CM_COLUMN_BLOCKS + i] = cm_load_block(l, i, CM_COL);
        }
#if CM_ENDS_BY_COLUMNS
    cm_wlast_back_own = cm_load_block(LAYERS, 0, CM_COL);
    [[unroll]] for (uint kb = 0; kb < CM_IB0; ++kb) cm_wfirst_own[kb] = cm_load_block_t(0, CM_COL, kb);
#endif
    [[unroll]] for (uint i = 0; i < CM_COLUMN_BLOCKS; ++i) {
        cm_wlast[i] = cm_load_last_forward(i);
#if CM_ENDS_BY_COLUMNS
#elif CM_NARROW_OUT
        [[unroll]] for (uint j = 0; j < 2; ++j) cm_wlast_back[i * 2 + j] = cm_load_last_back8(i, j);
#else
        cm_wlast_back[i] = cm_load_block(LAYERS, 0, i);
#endif
    }
}

// Matrix 0's block (nb, kb) as W^T (narrow: its 8 x 8 block 2 nb + j).
#if CM_NARROW_IN
CM_HK8 cm_w_first8(uint nb, uint j) {
#if CM_HOLDS_FIRST
    return cm_wfirst[nb * 2 + j];
#else
    return cm_load_first_t8(nb, j);
#endif
}
#else
CM_H cm_w_first(uint nb, uint kb) {
#if CM_HOLDS_FIRST
    return cm_wfirst[nb * CM_IB0 + kb];
#else
    return cm_load_block_t(0, nb, kb);
#endif
}
#endif
// Hidden matrix 1 <= l < LAYERS: forward block kb of output block CM_COL, as W^T; input-gradient
// block (ob, CM_COL), as W.
CM_H cm_w_hidden(int l, uint kb) {
    return cm_whidden[(l - 1) * CM_COLUMN_BLOCKS + kb];
}
CM_H cm_w_hidden_back(int l, uint ob) {
    return cm_whidden_back[(l - 1) * CM_COLUMN_BLOCKS + ob];
}
// The last matrix's block (0, i): as W^T (forward), as W (input gradients).
CM_LAST_FORWARD_BLOCK cm_w_last(uint kb) { return cm_wlast[kb]; }
// With the ends by columns, only the subgroup's own block (0, CM_COL) is used.
#if CM_ENDS_BY_COLUMNS
CM_H cm_w_last_back_own() { return cm_wlast_back_own; }
#elif CM_NARROW_OUT
CM_HK8 cm_w_last_back8(uint ib, uint j) { return cm_wlast_back[ib * 2 + j]; }
#else
CM_H cm_w_last_back(uint ib) { return cm_wlast_back[ib]; }
#endif

#include "mlp_coopmat_split_forward.glsl"
#include "mlp_coopmat_split_backward.glsl"
