// The training step's MLP on tensor cores for wide ReLU MLPs (hidden width 64 and more): the
// workgroup's subgroups share one tile of CM_ROWS samples. The narrow ends of the MLP (the first
// matrix's forward product, the last matrix's products) are taken by rows: each sample subgroup
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
// registers for the step where CM_WEIGHT_FRAGMENTS (the blocks a subgroup's products use; the
// first matrix's only with CM_FIRST_WEIGHT_FRAGMENTS), else loaded per phase; matrix 0's
// input-gradient blocks are loaded per tile. The fp32 biases come from the master copy (binding
// 0). Bias gradients are summed on the tensor cores too (cm_bias_sums).
//
// Gradient scaling is mlp_coopmat.glsl's: fp16 deltas carry CM_LOSS_SCALE, the fp32 sums are
// scaled once when written. The workgroup writes one partial row and one loss partial for each
// part, every entry by one subgroup; the sample subgroups' sums of the last matrix are added in
// shared memory, in a fixed order, at the step's end.
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
// CM_ENDS_BY_COLUMNS: the first matrix's forward product, the last matrix's backward products and
// the encoding's input gradients by columns too (every subgroup an output block or a block of
// rows), for tiles whose sample subgroups are fewer than the subgroups (width 128: 2 of 8, which
// took those phases alone while 6 waited). Only the last matrix's forward product stays by rows.
// Two more workgroup barriers a tile.
#ifndef CM_ENDS_BY_COLUMNS
#define CM_ENDS_BY_COLUMNS 0
#endif
// CM_ENC_INPUTS_BY_ROWS: with the ends by columns, the encoding's input gradients still by rows:
// each sample subgroup its own, so no workgroup barrier follows them (one a tile fewer; the host
// takes it with CM_HALF_SUMS, whose registers it needs).
#ifndef CM_ENC_INPUTS_BY_ROWS
#define CM_ENC_INPUTS_BY_ROWS 0
#endif
// CM_STAGE_INPUTS (the host's TrainTiling::stage_inputs; with the ends by columns, where the
// sample subgroups are at most half the subgroups): the next tile's encoded inputs are worked out
// by the subgroups after the sample ones (train_step.comp) while the sample subgroups take the
// last matrix's forward product, and left in a staging slice: the next tile's set of its inputs'
// columns (CM_STAGE_PINGPONG, below), or copied into slice 0 at its start. The encoding's
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
#ifndef CM_STAGE_INPUTS
#define CM_STAGE_INPUTS 0
#endif
#ifndef CM_LATE_ENCODING
#define CM_LATE_ENCODING 0
#endif
#if CM_STAGE_INPUTS && !CM_ENDS_BY_COLUMNS
#error "the next tile's inputs are staged where the ends are by columns"
#endif
#if CM_LATE_ENCODING && !CM_STAGE_INPUTS
#error "the late encoding backward pass takes the staged inputs' subgroups' order (CM_STAGE_INPUTS)"
#endif
#if CM_LATE_ENCODING
#define CM_DX_COLUMNS IN_PAD // the encoding's input-gradient blocks: at most IN_PAD wide
#define CM_DX_COL SLICE_COLS
#elif CM_STAGE_INPUTS
#if (LAYERS >= 2 && IN_PAD > HIDDEN) || (LAYERS < 2 && IN_PAD > OUT_PAD)
#error "the encoding's input gradients do not fit slice 2"
#endif
#define CM_DX_COLUMNS 0
#define CM_DX_COL SLICE_COL(2)
#else
#define CM_DX_COLUMNS 0
#define CM_DX_COL 0
#endif
// The encoding's input gradients of the tile's sample `row` as the products left them (CM_DX_COL),
// fp32, unscaled, into the float array `dx`: the sample subgroups' own (cm_backward), or the late
// subgroups' (cm_late_input_gradients).
#define CM_READ_INPUT_GRADIENTS(row, grad_scale, dx) \
    [[unroll]] for (int c_ = 0; c_ < ENC_GRAD_DIM; ++c_) dx[c_] = float(s_slice[CM_SLICE(CM_DX_COL + c_) + (row)]) * (grad_scale);

// CM_STAGE_PINGPONG (default with CM_STAGE_INPUTS): the staged inputs are not copied into slice 0
// at each tile's start; the encoding's outputs take two sets of IN_PAD columns instead, the
// tile's by its parity (CM_X0_COL: slice 0 or the staging columns), and the staging subgroups
// write the other set. Nothing then writes the tile's inputs after its first barrier, so matrix
// 0's weight gradients, which read them, may run past the barrier after them (below).
#ifndef CM_STAGE_PINGPONG
#define CM_STAGE_PINGPONG CM_STAGE_INPUTS
#endif
#if CM_STAGE_PINGPONG && !CM_STAGE_INPUTS
#error "the staged inputs' two sets of columns take CM_STAGE_INPUTS"
#endif
#if CM_STAGE_PINGPONG
#define CM_STAGE_COLUMNS IN_PAD
#define CM_STAGE_COL (SLICE_COLS + CM_DX_COLUMNS)
#define CM_X0_COL_OF(tile) (((tile) & 1u) != 0u ? uint(CM_STAGE_COL) : 0u)
uint cm_x0_col; // the tile's encoding outputs' first column (cm_take_staged_inputs sets it)
#define CM_X0_COL cm_x0_col
#else
#define CM_STAGE_COLUMNS 0
#define CM_X0_COL 0
#endif
#if TILE != 2 * HIDDEN * CM_ROW_SPLIT || (CM_ROWS % 32) != 0 || CM_ROWS > TILE
#error "the shared-tile MLP runs CM_ROW_SPLIT * HIDDEN / 16 subgroups (TILE = 2 * HIDDEN * CM_ROW_SPLIT) on CM_ROWS <= TILE samples, a multiple of 32"
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
#ifndef CM_NARROW_ENDS
#define CM_NARROW_ENDS 0
#endif
#define CM_NARROW_OUT (CM_NARROW_ENDS && !CM_ENDS_BY_COLUMNS && OUT_DIM <= 8 && MATRICES <= 8)
#define CM_NARROW_IN (CM_NARROW_ENDS && !CM_ENDS_BY_COLUMNS && IN_DIM <= 8)
#define CM_NARROW_LAST_FORWARD (CM_NARROW_ENDS && OUT_DIM <= 8)
// CM_NARROW_BIAS: the bias sums' fragment 16 outputs x 8 matrices (a column a matrix), its
// products 16x8x16: with the narrow ends by rows, and with the ends by columns wherever the model
// has at most 8 matrices. There it frees 4 registers a lane and halves those products: width 128
// on the H200 at 2^20 690.6 against 717.0 us/step, at 2^18 187.3 against 194.3, the same sums
// (bench/RESULTS.md, session 37). FIELDFLOW_TRAIN_DEFINES=CM_NARROW_BIAS=0 keeps the 16-column
// fragment (measurements).
#define CM_NARROW_BIAS_FITS (CM_NARROW_ENDS && MATRICES <= 8)
#ifndef CM_NARROW_BIAS
#define CM_NARROW_BIAS (CM_NARROW_OUT || (CM_ENDS_BY_COLUMNS && CM_NARROW_BIAS_FITS))
#endif
#if CM_NARROW_BIAS && !CM_NARROW_BIAS_FITS
#error "the bias sums' 8-column fragment takes the 16x8 shapes (CM_NARROW_ENDS) and at most 8 matrices"
#endif
#if CM_NARROW_IN && IN_PAD != 16
#error "the narrow first matrix writes its padding inputs 8..15 as zeros: IN_PAD must be 16"
#endif
#if CM_NARROW_OUT
#define CM_NARROW_OUT_BOOL true
#else
#define CM_NARROW_OUT_BOOL false
#endif
#define CM_H8 fcoopmatNV<16, gl_ScopeSubgroup, 16, 8> // 16 x 8: A of 16x8x8, B of 16x8x16
#define CM_HK8 fcoopmatNV<16, gl_ScopeSubgroup, 8, 8> // 8 x 8: B of 16x8x8
#define CM_F8 fcoopmatNV<32, gl_ScopeSubgroup, 16, 8> // 16 x 8 accumulator
#define CM_LOSS_SCALE FP16_DELTA_SCALE
// CM_HALF_SUMS: the wide phases' activation and input-gradient products (hidden width terms each,
// stored as fp16 anyway) summed in fp16 accumulators, as tiny-cuda-nn's fully fused MLP sums
// them: half the registers of fp32 ones, which width 128's phases are short of. The weight
// gradients (summed over the step), the MLP's ends and the encoding's input gradients stay fp32.
#ifndef CM_HALF_SUMS
#define CM_HALF_SUMS 0
#endif
#if CM_HALF_SUMS
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
#define RS (CM_ROWS + 8)               // slice stride in halves: 16-byte aligned columns, conflict-free loads
#define SLICE_COL(l) ((l) == 0 ? CM_X0_COL : IN_PAD + ((l) - 1) * HIDDEN)
#define SLICE_COLS (IN_PAD + LAYERS * HIDDEN + OUT_PAD)
#define CM_SLICE(c) (uint(c) * RS)     // column c's first row
#define CM_ENC_BLOCKS ((ENC_GRAD_DIM + 15) / 16)
#if CM_STAGE_INPUTS && CM_COLUMN_BLOCKS * CM_ROW_SPLIT < 2 * CM_SAMPLE_SUBGROUPS
#error "staging the next tile's inputs takes as many subgroups again as the sample subgroups"
#endif
#if CM_LATE_ENCODING && (TILE <= 2 * CM_ROWS || (TILE % CM_ROWS) != 0)
#error "the late encoding backward pass takes whole shares of the tile's samples after the staging subgroups"
#endif
// CM_CHAINS: independent sums that the short phases every other subgroup waits on (the last
// matrix's forward product, a block of the encoding's input gradients) split their K blocks
// over, added at the end: with the ends by columns two, chains of HIDDEN / 32 products where one
// was HIDDEN / 16 long.
#ifndef CM_CHAINS
#if CM_ENDS_BY_COLUMNS && CM_COLUMN_BLOCKS >= 2
#define CM_CHAINS 2
#else
#define CM_CHAINS 1
#endif
#endif
#if CM_CHAINS < 1 || CM_CHAINS > CM_COLUMN_BLOCKS
#error "CM_CHAINS: from 1 to the hidden width's blocks"
#endif
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
#ifndef CM_ROW_GROUP
#if CM_ROW_BLOCKS >= 4
#define CM_ROW_GROUP 4
#else
#define CM_ROW_GROUP CM_ROW_BLOCKS
#endif
#endif
#if (CM_ROW_BLOCKS % CM_ROW_GROUP) != 0
#error "a subgroup's row blocks (CM_ROWS / 16 / CM_ROW_SPLIT) must be a multiple of the row group"
#endif

// Measurements (FIELDFLOW_TRAIN_ABLATE; the step then does not train): ABLATE_TILE_LOADS has the
// wide phases (the hidden matrices' forward products and their backward phases) load their tile
// operand once a row block and use it for every K block (the products stay, their tile loads
// go); ABLATE_TILE_BARRIERS leaves out the workgroup barriers between a tile's phases (the
// subgroups then read what others have not yet written).
#ifdef ABLATE_TILE_BARRIERS
#define cm_tile_barrier()
#else
#define cm_tile_barrier() barrier()
#endif

// The selectors follow the slices directly: a matrix load's rows must be 16-byte aligned (after
// the losses of one or two subgroups they were not, and the tensor cores read garbage).
shared CmShared {
    float16_t s_slice[(SLICE_COLS + CM_DX_COLUMNS + CM_STAGE_COLUMNS) * RS];
    float16_t s_bias_select[16 * 16]; // row l: 1 in column l (cm_bias_selector)
    float s_loss_sub[CM_SUBGROUPS];
#if CM_STAGE_INPUTS && !CM_STAGE_PINGPONG
    float16_t s_stage[IN_PAD * RS]; // the next tile's inputs, feature-major as slice 0
#endif
#ifdef CM_SHARED_EXTRA
    CM_SHARED_EXTRA // the including kernel's own shared memory (every shared variable is in a block)
#endif
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
// the first matrix's block (ob, ib) as W; over its 8 inputs where narrow (ib is then 0).
#if CM_NARROW_IN
#define CM_ENC_INPUT_SUM CM_F8
#define CM_ENC_INPUT_H CM_H8
#define cm_load_first_back(ob, ib) cm_load_first_back8(ob)
#else
#define CM_ENC_INPUT_SUM CM_F
#define CM_ENC_INPUT_H CM_H
#define cm_load_first_back(ob, ib) cm_load_block(0, ob, ib)
#endif

#ifndef CM_WEIGHT_FRAGMENTS
#define CM_WEIGHT_FRAGMENTS 1
#endif
// With CM_WEIGHT_FRAGMENTS: the first matrix's blocks held too, else loaded for each tile (the
// host's choice by the registers the held fragments take).
#ifndef CM_FIRST_WEIGHT_FRAGMENTS
#define CM_FIRST_WEIGHT_FRAGMENTS CM_WEIGHT_FRAGMENTS
#endif
#define CM_HOLDS_FIRST (CM_WEIGHT_FRAGMENTS && CM_FIRST_WEIGHT_FRAGMENTS)
// The weight blocks a subgroup's products use: forward (W^T), matrix 0's (nb, kb) for every
// output block (rows), hidden matrix l's (CM_COL, kb) (columns), the last matrix's (0, kb) (rows);
// input gradients (W), hidden matrix l's (ob, CM_COL) (columns), the last matrix's (0, ib) (rows).
#define CM_IB0 (IN_PAD / 16)
// CM_OWN_BLOCKS (default with the ends by columns and the blocks held): of the first matrix's
// forward blocks and the last matrix's input-gradient blocks a subgroup holds only those of its
// own column block, all that its column phases use. Without it, it holds the last matrix's whole
// row and takes block CM_COL of it (no constant index) and loads the first matrix's block for
// every tile: on the H200 width 128's kernel then took 288 bytes of local memory a lane, with it
// none (bench/RESULTS.md, session 33).
#ifndef CM_OWN_BLOCKS
#define CM_OWN_BLOCKS (CM_ENDS_BY_COLUMNS && CM_WEIGHT_FRAGMENTS)
#endif
#if CM_OWN_BLOCKS && !(CM_ENDS_BY_COLUMNS && CM_WEIGHT_FRAGMENTS)
#error "a subgroup holds its own blocks alone where the ends are by columns and the blocks are held"
#endif
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
#if CM_WEIGHT_FRAGMENTS
CM_H cm_whidden[CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS]; // matrix l's (CM_COL, kb) at (l - 1) * blocks + kb
CM_H cm_whidden_back[CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS]; // matrix l's (ob, CM_COL)
#if CM_NARROW_LAST_FORWARD
CM_H8 cm_wlast[CM_COLUMN_BLOCKS];                      // (0, kb), 8 outputs
#else
CM_H cm_wlast[CM_COLUMN_BLOCKS];                       // (0, kb)
#endif
#if CM_OWN_BLOCKS
CM_H cm_wlast_back_own;                                // (0, CM_COL)
CM_H cm_wfirst_own[CM_IB0];                            // matrix 0's (CM_COL, kb), as W^T
#elif CM_NARROW_OUT
CM_HK8 cm_wlast_back[CM_COLUMN_BLOCKS * 2];            // (0, 2 ib + j), 8 x 8
#else
CM_H cm_wlast_back[CM_COLUMN_BLOCKS];                  // (0, ib)
#endif
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
#if CM_WEIGHT_FRAGMENTS
    [[unroll]] for (int l = 1; l < LAYERS; ++l)
        [[unroll]] for (uint i = 0; i < CM_COLUMN_BLOCKS; ++i) {
            cm_whidden[(l - 1) * CM_COLUMN_BLOCKS + i] = cm_load_block_t(l, CM_COL, i);
            cm_whidden_back[(l - 1) * CM_COLUMN_BLOCKS + i] = cm_load_block(l, i, CM_COL);
        }
#if CM_OWN_BLOCKS
    cm_wlast_back_own = cm_load_block(LAYERS, 0, CM_COL);
    [[unroll]] for (uint kb = 0; kb < CM_IB0; ++kb) cm_wfirst_own[kb] = cm_load_block_t(0, CM_COL, kb);
#endif
    [[unroll]] for (uint i = 0; i < CM_COLUMN_BLOCKS; ++i) {
        cm_wlast[i] = cm_load_last_forward(i);
#if CM_OWN_BLOCKS
#elif CM_NARROW_OUT
        [[unroll]] for (uint j = 0; j < 2; ++j) cm_wlast_back[i * 2 + j] = cm_load_last_back8(i, j);
#else
        cm_wlast_back[i] = cm_load_block(LAYERS, 0, i);
#endif
    }
#endif
}

// A weight block from the held ones, or loaded (the held arrays exist only with CM_WEIGHT_FRAGMENTS).
#if CM_WEIGHT_FRAGMENTS
#define CM_HELD_OR_LOADED(held, loaded) held
#else
#define CM_HELD_OR_LOADED(held, loaded) loaded
#endif
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
    return CM_HELD_OR_LOADED(cm_whidden[(l - 1) * CM_COLUMN_BLOCKS + kb], cm_load_block_t(l, CM_COL, kb));
}
CM_H cm_w_hidden_back(int l, uint ob) {
    return CM_HELD_OR_LOADED(cm_whidden_back[(l - 1) * CM_COLUMN_BLOCKS + ob], cm_load_block(l, ob, CM_COL));
}
// The last matrix's block (0, i): as W^T (forward), as W (input gradients).
CM_LAST_FORWARD_BLOCK cm_w_last(uint kb) { return CM_HELD_OR_LOADED(cm_wlast[kb], cm_load_last_forward(kb)); }
// With the ends by columns, only the subgroup's own block (0, CM_COL) is used.
#if CM_OWN_BLOCKS
CM_H cm_w_last_back_own() { return cm_wlast_back_own; }
#elif CM_NARROW_OUT
CM_HK8 cm_w_last_back8(uint ib, uint j) { return CM_HELD_OR_LOADED(cm_wlast_back[ib * 2 + j], cm_load_last_back8(ib, j)); }
#else
CM_H cm_w_last_back(uint ib) { return CM_HELD_OR_LOADED(cm_wlast_back[ib], cm_load_block(LAYERS, 0, ib)); }
#endif
#if CM_ENDS_BY_COLUMNS && !CM_OWN_BLOCKS
CM_H cm_w_last_back_own() { return cm_w_last_back(CM_COL); }
#endif

// Sample subgroups only.
void cm_put_input(float x[IN_PAD]) {
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) s_slice[CM_SLICE(i) + CM_ROW] = float16_t(x[i]);
}

// The subgroups that stage the next tile's inputs (CM_STAGE_INPUTS), and the sample each takes.
#define CM_STAGES (CM_STAGE_INPUTS != 0 && CM_SUB >= CM_SAMPLE_SUBGROUPS && CM_SUB < 2 * CM_SAMPLE_SUBGROUPS)
#define CM_STAGE_ROW ((CM_SUB - CM_SAMPLE_SUBGROUPS) * WT + CM_LANE)
#if CM_STAGE_INPUTS
// Staging subgroups only (CM_STAGES): their sample's inputs of `tile`.
void cm_put_staged_input(uint tile, float x[IN_PAD]) {
#if CM_STAGE_PINGPONG
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) s_slice[CM_SLICE(CM_X0_COL_OF(tile) + i) + CM_STAGE_ROW] = float16_t(x[i]);
#else
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) s_stage[CM_SLICE(i) + CM_STAGE_ROW] = float16_t(x[i]);
#endif
}
#if CM_LATE_ENCODING
// The subgroups after the staging ones (train_step.comp deals them the samples' shares).
#define CM_LATES (CM_SUB >= 2 * CM_SAMPLE_SUBGROUPS)
// Late subgroups, before the tile after it passes its first workgroup barrier of the backward
// pass: the input gradients the sample subgroups left for a tile's sample `row`, fp32, unscaled.
void cm_late_input_gradients(uint row, float grad_scale, out float dx[ENC_GRAD_DIM]) {
    CM_READ_INPUT_GRADIENTS(row, grad_scale, dx)
}
#endif
// Every invocation, at `tile`'s start: the staged inputs into slice 0 (the tile before has read
// its own: its last reads of slice 0, matrix 0's weight gradients, precede a workgroup barrier),
// or with CM_STAGE_PINGPONG the tile's set of columns chosen.
void cm_take_staged_inputs(uint tile) {
#if CM_STAGE_PINGPONG
    cm_x0_col = CM_X0_COL_OF(tile);
#else
    for (uint e = gl_LocalInvocationIndex; e < uint(IN_PAD * CM_ROWS); e += TILE) {
        const uint at = CM_SLICE(e / uint(CM_ROWS)) + e % uint(CM_ROWS);
        s_slice[at] = s_stage[at];
    }
#endif
}
#endif

// Rows: matrix 0 for the subgroup's own samples, bias and ReLU on the accumulator (the bias enters
// as its starting value, a stride-0 load repeating the bias row), into slice 1.
void cm_forward_first() {
#if CM_NARROW_IN
    // Each 16-column output block as two 8-wide ones over the 8 inputs.
    CM_H8 x[WT / 16];
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) coopMatLoadNV(x[h], s_slice, CM_SLICE(CM_X0_COL) + CM_SUB * WT + h * 16, RS, true);
    [[unroll]] for (uint nb = 0; nb < CM_COLUMN_BLOCKS; ++nb)
        [[unroll]] for (uint j = 0; j < 2; ++j) {
            const uint n0 = nb * 16 + j * 8; // the 8 outputs' first
            CM_F8 bias;
            coopMatLoadNV(bias, mlp_params, B_OFF(0) + n0, 0, false);
            const CM_HK8 w = cm_w_first8(nb, j);
            [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
                CM_F8 acc = coopMatMulAddNV(x[h], w, bias);
                for (int i = 0; i < acc.length(); ++i) acc[i] = max(acc[i], 0.0);
                coopMatStoreNV(CM_H8(acc), s_slice, CM_SLICE(SLICE_COL(1) + n0) + CM_SUB * WT + h * 16, RS, true);
            }
        }
#else
    [[unroll]] for (uint nb = 0; nb < CM_COLUMN_BLOCKS; ++nb) {
        CM_F acc[WT / 16];
        coopMatLoadNV(acc[0], mlp_params, B_OFF(0) + nb * 16, 0, false);
        [[unroll]] for (uint h = 1; h < WT / 16; ++h) acc[h] = acc[0];
        [[unroll]] for (uint kb = 0; kb < CM_IB0; ++kb) {
            const CM_H w = cm_w_first(nb, kb);
            [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(CM_X0_COL + kb * 16) + CM_SUB * WT + h * 16, RS, true);
                acc[h] = coopMatMulAddNV(a, w, acc[h]);
            }
        }
        [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
            for (int i = 0; i < acc[h].length(); ++i) acc[h][i] = max(acc[h][i], 0.0);
            coopMatStoreNV(CM_H(acc[h]), s_slice, CM_SLICE(SLICE_COL(1) + nb * 16) + CM_SUB * WT + h * 16, RS, true);
        }
    }
#endif
}

// Block kb of output block CM_COL of matrix l, as W^T: the hidden matrices' (held or loaded), or
// the first matrix's (CM_ENDS_BY_COLUMNS): held with CM_OWN_BLOCKS, else loaded.
CM_H cm_w_columns(int l, uint kb) {
#if CM_OWN_BLOCKS
    if (l == 0) return cm_wfirst_own[kb];
#else
    if (l == 0) return cm_load_block_t(0, CM_COL, kb);
#endif
    return cm_w_hidden(max(l, 1), kb);
}

// Columns: hidden matrix l >= 1 (or 0, CM_ENDS_BY_COLUMNS), output block CM_COL of the subgroup's
// row blocks, bias and ReLU on the accumulator, into slice l + 1.
void cm_forward_hidden(int l) {
    CM_F bias32;
    coopMatLoadNV(bias32, mlp_params, B_OFF(l) + CM_COL * 16, 0, false);
    const CM_ACC bias = CM_ACC(bias32);
    [[dont_unroll]] for (uint rb0 = 0; rb0 < CM_ROW_BLOCKS; rb0 += CM_ROW_GROUP) {
        CM_ACC acc[CM_ROW_GROUP];
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) acc[g] = bias;
#ifdef ABLATE_TILE_LOADS
        CM_H a0[CM_ROW_GROUP];
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g)
            coopMatLoadNV(a0[g], s_slice, CM_SLICE(SLICE_COL(l)) + CM_RB(rb0 + g) * 16, RS, true);
#endif
        [[unroll]] for (uint kb = 0; kb < IN_PAD_L(l) / 16; ++kb) {
            const CM_H w = cm_w_columns(l, kb);
            [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
#ifdef ABLATE_TILE_LOADS
                acc[g] = coopMatMulAddNV(a0[g], w, acc[g]);
#else
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l) + kb * 16) + CM_RB(rb0 + g) * 16, RS, true);
                acc[g] = coopMatMulAddNV(a, w, acc[g]);
#endif
            }
        }
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
            for (int i = 0; i < acc[g].length(); ++i) acc[g][i] = max(acc[g][i], CM_ACC_ZERO);
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
    CM_LAST_FORWARD_SUM acc[WT / 16 * CM_CHAINS]; // row block h's chain c at h * CM_CHAINS + c
    [[unroll]] for (uint h = 0; h < WT / 16 * CM_CHAINS; ++h) acc[h] = CM_LAST_FORWARD_SUM(0.0);
    // Both row blocks' sums side by side: two chains of products, where one block after the other
    // made one of twice the length (the H200 at 2^20: width 128 836 against 866 us/step, width 64
    // 328 against 335, the lake model 186.6 against 189.1, the same bits; bench/RESULTS.md,
    // session 31).
    [[unroll]] for (uint kb = 0; kb < HIDDEN / 16; ++kb)
        [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
            CM_H a;
            coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l) + kb * 16) + CM_SUB * WT + h * 16, RS, true);
            acc[h * CM_CHAINS + kb % CM_CHAINS] = coopMatMulAddNV(a, cm_w_last(kb), acc[h * CM_CHAINS + kb % CM_CHAINS]);
        }
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        CM_ADD_CHAINS(acc, h * CM_CHAINS)
        coopMatStoreNV(acc[h * CM_CHAINS], s_out, out_at, RS / 2, true);
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
// have put their inputs (or every invocation taken the staged ones). The forward pass up to the
// last matrix's product, which the sample subgroups then take (cm_forward_output) before any
// other subgroup passes a workgroup barrier.
void cm_forward_hidden_layers() {
#if CM_ENDS_BY_COLUMNS
    cm_tile_barrier(); // every sample subgroup's inputs are in
    cm_forward_hidden(0);
#else
    if (CM_HOLDS_SAMPLES) {
        subgroupBarrier(); // the lanes' inputs are in
        cm_forward_first();
    }
#endif
    cm_tile_barrier();
    [[unroll]] for (int l = 1; l < LAYERS; ++l) {
        cm_forward_hidden(l);
        cm_tile_barrier();
    }
}

// The whole forward pass: leaves each sample's output in cm_out and d act / d z in cm_dact_out.
void cm_forward() {
    cm_forward_hidden_layers();
    if (CM_HOLDS_SAMPLES) cm_forward_output();
}

// ---- The step's gradient sums of this subgroup: of matrix l < LAYERS the row of blocks
// (CM_COL, ib) over the subgroup's row blocks (columns), of the last matrix every block (0, ib)
// over its own samples (rows; sample subgroups).
#if CM_NARROW_IN
CM_F8 cm_grad_first[1];                                   // matrix 0's (CM_COL, 0), its 8 inputs
#else
CM_F cm_grad_first[CM_IB0];                               // matrix 0's (CM_COL, ib)
#endif
CM_F cm_grad_hidden[CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS]; // matrix l's (ob, CM_COL)^T at (l - 1) * blocks + ob
#if CM_ENDS_BY_COLUMNS
#define CM_LAST_SUM_BLOCKS 1 // the last matrix's (0, CM_COL), over the subgroup's row blocks
#else
#define CM_LAST_SUM_BLOCKS CM_COLUMN_BLOCKS // the last matrix's (0, ib), own samples
#endif
#if CM_NARROW_OUT
CM_F8 cm_grad_last[CM_LAST_SUM_BLOCKS]; // transposed: block ib's 16 inputs x the 8 outputs
#else
CM_F cm_grad_last[CM_LAST_SUM_BLOCKS];
#endif
// The bias sums of every matrix in one fragment: column l of row o holds matrix l's output o (of
// the owned block, or for the last matrix of the subgroup's own samples). A product of the
// deltas' block D^T (16 outputs x 16 samples) with S_l, 16 rows each 1 in column l and 0
// elsewhere, adds each output's sum over the samples into column l: one product a row block,
// where lanes summing columns of halves one by one had taken 10% of the lake model's step and 16%
// of width 64's at 2^20 (FIELDFLOW_TRAIN_ABLATE=bias, bench/RESULTS.md).
#if CM_NARROW_BIAS
CM_F8 cm_bias_sums; // at most 8 matrices: 8 columns
#else
CM_F cm_bias_sums;
#endif
uint cm_grad_row;             // the row of mlp_partials of the workgroup's part CM_PART
#if MATRICES > 16
#error "the bias sums' fragment has a column for each of at most 16 matrices"
#endif

// S_l: its rows all row l of s_bias_select (a stride-0 load).
#if CM_NARROW_BIAS
CM_H8 cm_bias_selector(int l) {
    CM_H8 s;
#else
CM_H cm_bias_selector(int l) {
    CM_H s;
#endif
    coopMatLoadNV(s, s_bias_select, uint(l) * 16u, 0, false);
    return s;
}
// Adds the sums over a 16-sample block of the deltas a = D^T (loaded row-major over the delta
// slice: output o's row) of matrix l.
#ifndef ABLATE_BIAS
#define CM_ADD_BIAS_SUMS(a, l) cm_bias_sums = coopMatMulAddNV(a, cm_bias_selector(l), cm_bias_sums);
#else
#define CM_ADD_BIAS_SUMS(a, l)
#endif

// `group`: the workgroup's index among the step's; its parts' rows follow each other.
void cm_grad_begin(uint group) {
    cm_grad_row = (group * CM_ROW_SPLIT + CM_PART) * uint(MLP_PARAMS);
#if CM_NARROW_IN
    cm_grad_first[0] = CM_F8(0.0);
#else
    [[unroll]] for (int f = 0; f < CM_IB0; ++f) cm_grad_first[f] = CM_F(0.0);
#endif
    [[unroll]] for (int f = 0; f < CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS; ++f) cm_grad_hidden[f] = CM_F(0.0);
#if CM_NARROW_OUT
    [[unroll]] for (int f = 0; f < CM_LAST_SUM_BLOCKS; ++f) cm_grad_last[f] = CM_F8(0.0);
#else
    [[unroll]] for (int f = 0; f < CM_LAST_SUM_BLOCKS; ++f) cm_grad_last[f] = CM_F(0.0);
#endif
#if CM_NARROW_BIAS
    cm_bias_sums = CM_F8(0.0);
#else
    cm_bias_sums = CM_F(0.0);
#endif
}

// delta: this sample's (y - t) * act'(z) per output (zero past OUT_DIM and outside the batch).
// Sample subgroups only, after cm_forward (their fp32 outputs have left the delta slice).
void cm_put_output_delta(float delta[OUT_PAD]) {
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o)
        s_slice[CM_SLICE(SLICE_COL(LAYERS + 1) + o) + CM_ROW] = float16_t(delta[o] * CM_LOSS_SCALE);
}

// Stores a block of input gradients `dx` over the activations it belongs to (the block at `at`),
// zero where the activation was not positive: ReLU's derivative read from the output it
// overwrites, which makes it the previous matrix's deltas.
void cm_store_relu_masked(CM_H dx, uint at) {
    CM_H y;
    coopMatLoadNV(y, s_slice, at, RS, true);
    for (int i = 0; i < dx.length(); ++i) dx[i] = y[i] > float16_t(0.0) ? dx[i] : float16_t(0.0);
    coopMatStoreNV(dx, s_slice, at, RS, true);
}
// The same for an 8-column block (the narrow ends).
void cm_store_relu_masked8(CM_F8 acc, uint at) {
    CM_H8 dx = CM_H8(acc), y;
    coopMatLoadNV(y, s_slice, at, RS, true);
    for (int i = 0; i < dx.length(); ++i) dx[i] = y[i] > float16_t(0.0) ? dx[i] : float16_t(0.0);
    coopMatStoreNV(dx, s_slice, at, RS, true);
}

#if !CM_ENDS_BY_COLUMNS
// Rows: the last matrix's weight-gradient sums and bias sums over this sample subgroup's own
// samples, then their input gradients over slice LAYERS (ReLU's derivative read from the output
// they overwrite): matrix LAYERS - 1's deltas.
void cm_output_backward() {
    const int l = LAYERS;
#if CM_NARROW_OUT
    // The deltas' 8 columns D (16 samples x 8): B of the transposed weight gradient X_l^T D, A of
    // the input gradient D W_l (as two 8 x 8 blocks a 16-column input block).
    CM_H8 d[WT / 16];
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        const uint r0 = CM_SUB * WT + h * 16;
        coopMatLoadNV(d[h], s_slice, CM_SLICE(SLICE_COL(l + 1)) + r0, RS, true);
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1)) + r0, RS, false); // delta^T
        CM_ADD_BIAS_SUMS(a, l)
#ifndef ABLATE_WEIGHT_GRADIENTS
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib) {
            CM_H xt;
            coopMatLoadNV(xt, s_slice, CM_SLICE(SLICE_COL(l) + ib * 16) + r0, RS, false); // X_l^T
            cm_grad_last[ib] = coopMatMulAddNV(xt, d[h], cm_grad_last[ib]);
        }
#endif
    }
    subgroupBarrier(); // X_l is read before it is overwritten
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        const uint r0 = CM_SUB * WT + h * 16;
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib)
            [[unroll]] for (uint j = 0; j < 2; ++j) {
                const CM_F8 acc = coopMatMulAddNV(d[h], cm_w_last_back8(ib, j), CM_F8(0.0));
                cm_store_relu_masked8(acc, CM_SLICE(SLICE_COL(l) + ib * 16 + j * 8) + r0);
            }
    }
#else
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        const uint r0 = CM_SUB * WT + h * 16;
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1)) + r0, RS, false); // delta^T
        CM_ADD_BIAS_SUMS(a, l)
#ifndef ABLATE_WEIGHT_GRADIENTS
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib) {
            CM_H b;
            coopMatLoadNV(b, s_slice, CM_SLICE(SLICE_COL(l) + ib * 16) + r0, RS, true); // X_l
            cm_grad_last[ib] = coopMatMulAddNV(a, b, cm_grad_last[ib]);
        }
#endif
    }
    subgroupBarrier(); // X_l is read before it is overwritten
    [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
        const uint r0 = CM_SUB * WT + h * 16;
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1)) + r0, RS, true); // delta
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib) {
            CM_F acc = CM_F(0.0);
            acc = coopMatMulAddNV(a, cm_w_last_back(ib), acc);
            cm_store_relu_masked(CM_H(acc), CM_SLICE(SLICE_COL(l) + ib * 16) + r0);
        }
    }
#endif
}
#endif

// Columns: matrix 0's weight-gradient blocks (CM_COL, ib) over the subgroup's row blocks
// (delta^T X_0) and its bias sums of output block CM_COL. With hidden matrices, that block of the
// deltas is the subgroup's own (cm_backward_hidden has just written it).
void cm_weight_gradients_first() {
    [[unroll]] for (uint i0 = 0; i0 < CM_ROW_BLOCKS; ++i0) {
        const uint rb = CM_RB(i0);
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(1) + CM_COL * 16) + rb * 16, RS, false); // delta^T
        CM_ADD_BIAS_SUMS(a, 0)
#ifndef ABLATE_WEIGHT_GRADIENTS
#if CM_NARROW_IN
        CM_H8 x;
        coopMatLoadNV(x, s_slice, CM_SLICE(CM_X0_COL) + rb * 16, RS, true); // the 8 inputs
        cm_grad_first[0] = coopMatMulAddNV(a, x, cm_grad_first[0]);
#else
        [[unroll]] for (uint ib = 0; ib < CM_IB0; ++ib) {
            CM_H x;
            coopMatLoadNV(x, s_slice, CM_SLICE(CM_X0_COL + ib * 16) + rb * 16, RS, true); // X_0
            cm_grad_first[ib] = coopMatMulAddNV(a, x, cm_grad_first[ib]);
        }
#endif
#endif
    }
}

// Columns, one phase a hidden matrix 1 <= l < LAYERS: the input gradients of block CM_COL of the
// subgroup's rows over slice l (delta W_l; ReLU's derivative from the output they overwrite makes
// them matrix l - 1's deltas) and the transposed weight gradients of input block CM_COL
// (X_l^T delta: block (ob, CM_COL) for every output block ob), each delta block loaded once for
// both products (A of the one, B of the other). Every block of slice l a subgroup reads here or
// writes is its own, so the sums need no workgroup barrier before the overwrite; and matrix l's
// bias sums of output block CM_COL.
void cm_backward_hidden(int l) {
    [[dont_unroll]] for (uint rb0 = 0; rb0 < CM_ROW_BLOCKS; rb0 += CM_ROW_GROUP) {
        CM_ACC acc[CM_ROW_GROUP];
        CM_H xt[CM_ROW_GROUP]; // X_l^T: the owned input block by 16 samples
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
            const uint rb = CM_RB(rb0 + g);
            acc[g] = CM_ACC(0.0);
            coopMatLoadNV(xt[g], s_slice, CM_SLICE(SLICE_COL(l) + CM_COL * 16) + rb * 16, RS, false);
            CM_H a;
            coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1) + CM_COL * 16) + rb * 16, RS, false); // delta^T
            CM_ADD_BIAS_SUMS(a, l)
        }
#ifdef ABLATE_TILE_LOADS
        CM_H d0[CM_ROW_GROUP];
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g)
            coopMatLoadNV(d0[g], s_slice, CM_SLICE(SLICE_COL(l + 1)) + CM_RB(rb0 + g) * 16, RS, true);
#endif
        [[unroll]] for (uint ob = 0; ob < CM_COLUMN_BLOCKS; ++ob) {
            const CM_H w = cm_w_hidden_back(l, ob);
            [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
#ifdef ABLATE_TILE_LOADS
                const CM_H d = d0[g];
#else
                CM_H d;
                coopMatLoadNV(d, s_slice, CM_SLICE(SLICE_COL(l + 1) + ob * 16) + CM_RB(rb0 + g) * 16, RS, true);
#endif
                acc[g] = coopMatMulAddNV(d, w, acc[g]);
#ifndef ABLATE_WEIGHT_GRADIENTS
                cm_grad_hidden[(l - 1) * CM_COLUMN_BLOCKS + ob] =
                    coopMatMulAddNV(xt[g], d, cm_grad_hidden[(l - 1) * CM_COLUMN_BLOCKS + ob]);
#endif
            }
        }
        subgroupBarrier(); // X_l^T is read (in another lane order) before it is overwritten
        [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g)
            cm_store_relu_masked(CM_H(acc[g]), CM_SLICE(SLICE_COL(l) + CM_COL * 16) + CM_RB(rb0 + g) * 16);
    }
}

// Input block ib of the 16 rows from r0: delta_0 W_0 over slice 0, W_0's blocks from memory.
void cm_encoding_input_block(uint r0, uint ib) {
    CM_ENC_INPUT_SUM acc[CM_CHAINS];
    [[unroll]] for (uint c = 0; c < CM_CHAINS; ++c) acc[c] = CM_ENC_INPUT_SUM(0.0);
    [[unroll]] for (uint ob = 0; ob < CM_COLUMN_BLOCKS; ++ob) {
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(1) + ob * 16) + r0, RS, true); // delta_0
        acc[ob % CM_CHAINS] = coopMatMulAddNV(a, cm_load_first_back(ob, ib), acc[ob % CM_CHAINS]);
    }
    CM_ADD_CHAINS(acc, 0)
    coopMatStoreNV(CM_ENC_INPUT_H(acc[0]), s_slice, CM_SLICE(CM_DX_COL + ib * 16) + r0, RS, true);
}

// Rows: this sample subgroup's dLoss/d(encoding inputs) (the first CM_ENC_BLOCKS blocks) over slice
// 0, its two row blocks side by side (as in cm_forward_output), each weight block loaded once for
// both.
void cm_encoding_input_gradients() {
    [[unroll]] for (uint ib = 0; ib < CM_ENC_BLOCKS; ++ib) {
        CM_ENC_INPUT_SUM acc[WT / 16];
        [[unroll]] for (uint h = 0; h < WT / 16; ++h) acc[h] = CM_ENC_INPUT_SUM(0.0);
        [[unroll]] for (uint ob = 0; ob < CM_COLUMN_BLOCKS; ++ob) {
            const CM_ENC_INPUT_H w = cm_load_first_back(ob, ib);
            [[unroll]] for (uint h = 0; h < WT / 16; ++h) {
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(1) + ob * 16) + CM_SUB * WT + h * 16, RS, true); // delta_0
                acc[h] = coopMatMulAddNV(a, w, acc[h]);
            }
        }
        [[unroll]] for (uint h = 0; h < WT / 16; ++h)
            coopMatStoreNV(CM_ENC_INPUT_H(acc[h]), s_slice, CM_SLICE(CM_DX_COL + ib * 16) + CM_SUB * WT + h * 16, RS, true);
    }
}

#if CM_ENDS_BY_COLUMNS
// The column block whose subgroup adds the last matrix's bias sums over its i-th row block: with
// CM_SPREAD_LAST_BIAS (default where one part's row blocks are at most its column blocks) block
// i, so that the row blocks' sums are dealt out one a subgroup, where column block 0 took them all
// while the others waited at the barrier after; else block 0.
#ifndef CM_SPREAD_LAST_BIAS
#define CM_SPREAD_LAST_BIAS (CM_ROW_SPLIT == 1 && CM_ROW_BLOCKS <= CM_COLUMN_BLOCKS)
#endif
#if CM_SPREAD_LAST_BIAS && !(CM_ROW_SPLIT == 1 && CM_ROW_BLOCKS <= CM_COLUMN_BLOCKS)
#error "the last matrix's bias sums are dealt out over one part's row blocks, one a column block"
#endif
#if CM_SPREAD_LAST_BIAS
#define CM_LAST_BIAS_COL(i) (i)
#define CM_LAST_BIAS_SUBGROUPS CM_ROW_BLOCKS
#else
#define CM_LAST_BIAS_COL(i) 0u
#define CM_LAST_BIAS_SUBGROUPS 1
#endif
// Columns: the input-gradient block CM_COL of the subgroup's row blocks over slice LAYERS (ReLU's
// derivative from the output it overwrites: matrix LAYERS - 1's deltas), then the last matrix's
// weight-gradient block (0, CM_COL) over those rows (and the bias sums of those CM_LAST_BIAS_COL
// gives it). Block CM_COL of slice LAYERS is this subgroup's alone in this phase, read once
// before it is overwritten, with no workgroup barrier: the same blocks give the mask and the
// sums' operand (on the H200 width 128 at 2^20 682.0 against 684.5 us/step, 2^18 184.7 against
// 186.0, where the mask and the sums each loaded it; bench/RESULTS.md, session 37).
void cm_output_backward_columns() {
    const int l = LAYERS;
    CM_H x[CM_ROW_BLOCKS]; // X_l: the owned input block by 16 samples
    [[unroll]] for (uint i0 = 0; i0 < CM_ROW_BLOCKS; ++i0)
        coopMatLoadNV(x[i0], s_slice, CM_SLICE(SLICE_COL(l) + CM_COL * 16) + CM_RB(i0) * 16, RS, true);
    subgroupBarrier(); // X_l is read (in another lane order) before it is overwritten
    const CM_H w = cm_w_last_back_own();
    [[unroll]] for (uint i0 = 0; i0 < CM_ROW_BLOCKS; ++i0) {
        const uint rb = CM_RB(i0);
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1)) + rb * 16, RS, true); // delta
        CM_H dx = CM_H(coopMatMulAddNV(a, w, CM_F(0.0)));
        for (int i = 0; i < dx.length(); ++i) dx[i] = x[i0][i] > float16_t(0.0) ? dx[i] : float16_t(0.0);
        coopMatStoreNV(dx, s_slice, CM_SLICE(SLICE_COL(l) + CM_COL * 16) + rb * 16, RS, true);
    }
    [[unroll]] for (uint i0 = 0; i0 < CM_ROW_BLOCKS; ++i0) {
        const uint rb = CM_RB(i0);
        CM_H a;
        coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l + 1)) + rb * 16, RS, false); // delta^T
        if (CM_COL == CM_LAST_BIAS_COL(i0)) { CM_ADD_BIAS_SUMS(a, l) }
#ifndef ABLATE_WEIGHT_GRADIENTS
        cm_grad_last[0] = coopMatMulAddNV(a, x[i0], cm_grad_last[0]);
#endif
    }
}

// The encoding's input gradients over slice 0 as blocks (row block, input block) of the whole
// tile, dealt out to the subgroups in turn.
void cm_encoding_input_gradients_columns() {
    const uint blocks = (CM_ROWS / 16) * CM_ENC_BLOCKS;
    for (uint p = CM_SUB; p < blocks; p += CM_SUBGROUPS) cm_encoding_input_block(p / CM_ENC_BLOCKS * 16, p % CM_ENC_BLOCKS);
}

// CM_FIRST_GRADS_LATE (default with CM_STAGE_PINGPONG, the encoding's input gradients by columns
// and at most a block of them a subgroup): matrix 0's weight gradients after the barrier that
// follows matrix 1's backward phase, in one stretch of code with the subgroup's block of the
// encoding's input gradients: two independent chains of products, where one waited for the other
// and a barrier between them. The tile's inputs they read are no one's to overwrite before the
// next tile's first barriers (CM_STAGE_PINGPONG).
#define CM_FIRST_GRADS_LATE_FITS (CM_STAGE_PINGPONG && !CM_ENC_INPUTS_BY_ROWS && (CM_ROWS / 16) * CM_ENC_BLOCKS <= CM_SUBGROUPS)
#ifndef CM_FIRST_GRADS_LATE
#define CM_FIRST_GRADS_LATE CM_FIRST_GRADS_LATE_FITS
#endif
#if CM_FIRST_GRADS_LATE && !CM_FIRST_GRADS_LATE_FITS
#error "matrix 0's weight gradients go past the barrier with staged inputs in two sets and at most one input-gradient block a subgroup"
#endif
#if CM_FIRST_GRADS_LATE
// (matrix 0's sums in each branch, so that they share one stretch of code with the block's.)
void cm_encoding_inputs_and_first_grads() {
    const uint p = CM_SUB;
    if (p < (CM_ROWS / 16) * CM_ENC_BLOCKS) {
        cm_encoding_input_block(p / CM_ENC_BLOCKS * 16, p % CM_ENC_BLOCKS);
        cm_weight_gradients_first();
    } else {
        cm_weight_gradients_first();
    }
}
#endif
#else
#if defined(CM_FIRST_GRADS_LATE) && CM_FIRST_GRADS_LATE
#error "matrix 0's weight gradients go past the barrier where the ends are by columns"
#endif
#undef CM_FIRST_GRADS_LATE
#define CM_FIRST_GRADS_LATE 0
#endif

// Backward over the tile after the sample subgroups' cm_put_output_delta; every invocation calls
// it. Returns (sample subgroups; with CM_LATE_ENCODING none: cm_late_input_gradients) this
// sample's dLoss/d(encoding input), fp32, unscaled.
void cm_backward(float grad_scale, out float dx[ENC_GRAD_DIM]) {
#if CM_ENDS_BY_COLUMNS
    cm_tile_barrier(); // every sample subgroup's deltas are in
    cm_output_backward_columns();
#else
    if (CM_HOLDS_SAMPLES) {
        subgroupBarrier(); // the lanes' deltas are in
        cm_output_backward();
    }
#endif
    cm_tile_barrier();
    [[unroll]] for (int l = LAYERS - 1; l >= 1; --l) {
        cm_backward_hidden(l);
        if (l > 1) cm_tile_barrier(); // matrix l - 1's phase reads every block of slice l
    }
#if CM_FIRST_GRADS_LATE
    cm_tile_barrier(); // every block of matrix 0's deltas is in
    [[unroll]] for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = 0.0;
    cm_encoding_inputs_and_first_grads();
#else
    // Matrix 0's sums read only the subgroup's own block of its deltas, just written.
    if (LAYERS > 1) subgroupBarrier();
    cm_weight_gradients_first();
    cm_tile_barrier(); // ... and slice 0 by matrix 0's
    [[unroll]] for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = 0.0;
#endif
#if CM_ENDS_BY_COLUMNS && !CM_ENC_INPUTS_BY_ROWS
#if !CM_FIRST_GRADS_LATE
    cm_encoding_input_gradients_columns();
#endif
#if !CM_LATE_ENCODING // late, they are read past the next tile's barriers
    cm_tile_barrier();
#endif
#elif CM_LATE_ENCODING
    if (CM_HOLDS_SAMPLES) cm_encoding_input_gradients(); // read by the late subgroups, past barriers
#else
    if (CM_HOLDS_SAMPLES) {
        cm_encoding_input_gradients();
        subgroupBarrier();
    }
#endif
#if !CM_LATE_ENCODING
    if (CM_HOLDS_SAMPLES) { CM_READ_INPUT_GRADIENTS(CM_ROW, grad_scale, dx) }
#endif
}

// Where the subgroups leave their sums at the step's end (floats over the slices, free then): the
// sample subgroups' CM_COLUMN_BLOCKS blocks of the last matrix (16 x 16, row-major) each, then
// every subgroup's bias sums fragment (row-major).
#define CM_LAST_SUMS (CM_COLUMN_BLOCKS * 256)
#define CM_BIAS_SUMS_AT (CM_SAMPLE_SUBGROUPS * CM_LAST_SUMS)
#if (CM_BIAS_SUMS_AT + CM_SUBGROUPS * 256) * 2 > SLICE_COLS * RS
#error "the step's sums do not fit over the slices"
#endif

// Stores the step's sums, times `scale`, into the part's row: each subgroup its blocks and bias
// columns of the matrices before the last; the last matrix's, added over the sample subgroups in
// shared memory, by part 0's subgroups (block CM_COL, and column block 0 the bias), and as zeros
// by the other parts' (with CM_ENDS_BY_COLUMNS each subgroup its own block (0, CM_COL) of its part,
// column block 0 the bias). Together they are every entry of every row (padding included, so the
// rows need no clearing between steps). Every invocation calls this.
void cm_write_gradients(float scale) {
#if CM_NARROW_IN
    // The 8 inputs' sums, then zeros for the padding inputs (8..IN_PAD - 1: IN_PAD is 16).
    coopMatStoreNV(cm_grad_first[0] * scale, mlp_partials, cm_grad_row + CM_BLOCK_AT(0, CM_COL, 0), IN_PAD, false);
    coopMatStoreNV(CM_F8(0.0), mlp_partials, cm_grad_row + CM_BLOCK_AT(0, CM_COL, 0) + 8, IN_PAD, false);
#else
    [[unroll]] for (uint ib = 0; ib < CM_IB0; ++ib)
        coopMatStoreNV(cm_grad_first[ib] * scale, mlp_partials, cm_grad_row + CM_BLOCK_AT(0, CM_COL, ib), IN_PAD, false);
#endif
    // The hidden matrices' blocks (ob, CM_COL), held transposed.
    [[unroll]] for (int l = 1; l < LAYERS; ++l)
        [[unroll]] for (uint ob = 0; ob < CM_COLUMN_BLOCKS; ++ob)
            coopMatStoreNV(cm_grad_hidden[(l - 1) * CM_COLUMN_BLOCKS + ob] * scale, mlp_partials,
                           cm_grad_row + CM_BLOCK_AT(l, ob, CM_COL), HIDDEN, true);
    const int l = LAYERS;
#if CM_ENDS_BY_COLUMNS
    coopMatStoreNV(cm_grad_last[0] * scale, mlp_partials, cm_grad_row + CM_BLOCK_AT(l, 0, CM_COL), IN_PAD_L(l), false);
#endif
    barrier(); // every tile is done: the slices are free
    const uint bias_at = CM_BIAS_SUMS_AT + CM_SUB * 256; // this subgroup's bias sums, row o at o * 16
    coopMatStoreNV(cm_bias_sums, s_out, bias_at, 16, false);
#if CM_ENDS_BY_COLUMNS
    barrier();
    [[unroll]] for (int m = 0; m < LAYERS; ++m)
        if (CM_LANE < 16u) mlp_partials[cm_grad_row + B_OFF(m) + CM_COL * 16 + CM_LANE] = s_out[bias_at + CM_LANE * 16 + m] * scale;
    if (CM_LANE < 16u && CM_COL == 0u) {
        // The last matrix's, from the subgroups of the part's first column blocks in order.
        float bias = s_out[bias_at + CM_LANE * 16 + LAYERS];
        [[unroll]] for (uint c = 1; c < CM_LAST_BIAS_SUBGROUPS; ++c) bias += s_out[bias_at + c * 256 + CM_LANE * 16 + LAYERS];
        mlp_partials[cm_grad_row + B_OFF(LAYERS) + CM_LANE] = bias * scale;
    }
#else
    if (CM_HOLDS_SAMPLES) {
        const uint at = CM_SUB * CM_LAST_SUMS;
        // Narrow: the transposed sums column-major, output o's row at o * 16 as before (rows 8-15 unset).
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib)
            coopMatStoreNV(cm_grad_last[ib], s_out, at + ib * 256, 16, CM_NARROW_OUT_BOOL);
    }
    barrier();
    [[unroll]] for (int m = 0; m < LAYERS; ++m)
        if (CM_LANE < 16u)
            mlp_partials[cm_grad_row + B_OFF(m) + CM_COL * 16 + CM_LANE] = s_out[bias_at + CM_LANE * 16 + m] * scale;
    // Part 0 writes the sums, the other parts zeros; element by element (SPIRV-Tools' folding
    // crashes on the addition of two cooperative matrices).
    const float factor = CM_PART == 0u ? scale : 0.0;
    [[unroll]] for (uint e = CM_LANE; e < 256u; e += WT) {
        float sum = 0.0;
        if (!CM_NARROW_OUT_BOOL || e < 128u) // narrow: outputs 8-15 (padding) have no sums, only zeros
            [[unroll]] for (uint s = 0; s < CM_SAMPLE_SUBGROUPS; ++s) sum += s_out[s * CM_LAST_SUMS + CM_COL * 256 + e];
        mlp_partials[cm_grad_row + CM_BLOCK_AT(l, 0, CM_COL) + (e / 16u) * IN_PAD_L(l) + (e % 16u)] = sum * factor;
    }
    if (CM_COL == 0u && CM_LANE < 16u) {
        float bias = 0.0;
        [[unroll]] for (uint s = 0; s < CM_SAMPLE_SUBGROUPS; ++s) bias += s_out[CM_BIAS_SUMS_AT + s * 256 + CM_LANE * 16 + l];
        mlp_partials[cm_grad_row + B_OFF(l) + CM_LANE] = bias * factor;
    }
#endif
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
