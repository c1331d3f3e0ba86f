// The shared tile's backward pass, gradient sums and their write-out (mlp_coopmat_split.glsl's
// last part: included once, by it, after the forward pass).
// ---- The step's gradient sums of this subgroup: of matrix l < LAYERS the row of blocks
// (CM_COL, ib) over the subgroup's row blocks (columns), of the last matrix every block (0, ib)
// over its own samples (rows; sample subgroups).
CM_ENC_INPUT_SUM cm_grad_first[CM_FIRST_SUMS];            // matrix 0's (CM_COL, ib); narrow: its 8 inputs
CM_F cm_grad_hidden[CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS]; // matrix l's (ob, CM_COL)^T at (l - 1) * blocks + ob
#if CM_ENDS_BY_COLUMNS
#define CM_LAST_SUM_BLOCKS 1 // the last matrix's (0, CM_COL), over the subgroup's row blocks
#else
#define CM_LAST_SUM_BLOCKS CM_COLUMN_BLOCKS // the last matrix's (0, ib), own samples
#endif
CM_LAST_SUM cm_grad_last[CM_LAST_SUM_BLOCKS];
// The bias sums of every matrix in one fragment: column l of row o holds matrix l's output o (of
// the owned block, or for the last matrix of the subgroup's own samples). A product of the
// deltas' block D^T (16 outputs x 16 samples) with S_l, 16 rows each 1 in column l and 0
// elsewhere, adds each output's sum over the samples into column l: one product a row block,
// beside the weight-gradient product that loads the same block, rather than lanes summing columns
// of halves one by one, a tenth of the step or more at large batches (bench/archive/RESULTS.md,
// "bias sums on the tensor cores").
#if CM_NARROW_BIAS
#define CM_BIAS_SUM CM_F8 // at most 8 matrices: 8 columns
#define CM_BIAS_SELECTOR CM_H8
#else
#define CM_BIAS_SUM CM_F
#define CM_BIAS_SELECTOR CM_H
#endif
CM_BIAS_SUM cm_bias_sums;
uint cm_grad_row;             // the row of mlp_partials of the workgroup's part CM_PART

// S_l: its rows all row l of s_bias_select (a stride-0 load).
CM_BIAS_SELECTOR cm_bias_selector(int l) {
    CM_BIAS_SELECTOR s;
    coopMatLoadNV(s, s_bias_select, uint(l) * 16u, 0, false);
    return s;
}
// Adds the sums over a 16-sample block of the deltas a = D^T (loaded row-major over the delta
// slice: output o's row) of matrix l.
#define CM_ADD_BIAS_SUMS(a, l) cm_bias_sums = coopMatMulAddNV(a, cm_bias_selector(l), cm_bias_sums);

// `group`: the workgroup's index among the step's; its parts' rows follow each other.
void cm_grad_begin(uint group) {
    cm_grad_row = (group * CM_ROW_SPLIT + CM_PART) * uint(MLP_PARAMS);
#if CM_NARROW_IN
    cm_grad_first[0] = CM_F8(0.0);
#else
    [[unroll]] for (int f = 0; f < CM_IB0; ++f) cm_grad_first[f] = CM_F(0.0);
#endif
    [[unroll]] for (int f = 0; f < CM_HIDDEN_MATRICES * CM_COLUMN_BLOCKS; ++f) cm_grad_hidden[f] = CM_F(0.0);
    [[unroll]] for (int f = 0; f < CM_LAST_SUM_BLOCKS; ++f) cm_grad_last[f] = CM_LAST_SUM(0.0);
    cm_bias_sums = CM_BIAS_SUM(0.0);
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
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib) {
            CM_H xt;
            coopMatLoadNV(xt, s_slice, CM_SLICE(SLICE_COL(l) + ib * 16) + r0, RS, false); // X_l^T
            cm_grad_last[ib] = coopMatMulAddNV(xt, d[h], cm_grad_last[ib]);
        }
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
        [[unroll]] for (uint ib = 0; ib < CM_COLUMN_BLOCKS; ++ib) {
            CM_H b;
            coopMatLoadNV(b, s_slice, CM_SLICE(SLICE_COL(l) + ib * 16) + r0, RS, true); // X_l
            cm_grad_last[ib] = coopMatMulAddNV(a, b, cm_grad_last[ib]);
        }
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
        [[unroll]] for (uint ob = 0; ob < CM_COLUMN_BLOCKS; ++ob) {
            const CM_H w = cm_w_hidden_back(l, ob);
            [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
                CM_H d;
                coopMatLoadNV(d, s_slice, CM_SLICE(SLICE_COL(l + 1) + ob * 16) + CM_RB(rb0 + g) * 16, RS, true);
                acc[g] = coopMatMulAddNV(d, w, acc[g]);
                cm_grad_hidden[(l - 1) * CM_COLUMN_BLOCKS + ob] =
                    coopMatMulAddNV(xt[g], d, cm_grad_hidden[(l - 1) * CM_COLUMN_BLOCKS + ob]);
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
#define CM_SPREAD_LAST_BIAS (CM_ROW_SPLIT == 1 && CM_ROW_BLOCKS <= CM_COLUMN_BLOCKS)
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
// sums' operand, loaded once for both.
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
        cm_grad_last[0] = coopMatMulAddNV(a, x[i0], cm_grad_last[0]);
    }
}

// The encoding's input gradients over slice 0 as blocks (row block, input block) of the whole
// tile, dealt out to the subgroups in turn.
void cm_encoding_input_gradients_columns() {
    const uint blocks = (CM_ROWS / 16) * CM_ENC_BLOCKS;
    for (uint p = CM_SUB; p < blocks; p += CM_SUBGROUPS) cm_encoding_input_block(p / CM_ENC_BLOCKS * 16, p % CM_ENC_BLOCKS);
}

// CM_FIRST_GRADS_LATE (default with CM_STAGE_INPUTS, the encoding's input gradients by columns
// and at most a block of them a subgroup): matrix 0's weight gradients after the barrier that
// follows matrix 1's backward phase, in one stretch of code with the subgroup's block of the
// encoding's input gradients: two independent chains of products, where one waited for the other
// and a barrier between them. The tile's inputs they read are no one's to overwrite before the
// next tile's first barriers (CM_STAGE_INPUTS).
#define CM_FIRST_GRADS_LATE_FITS (CM_STAGE_INPUTS && !CM_ENC_INPUTS_BY_ROWS && (CM_ROWS / 16) * CM_ENC_BLOCKS <= CM_SUBGROUPS)
#define CM_FIRST_GRADS_LATE CM_FIRST_GRADS_LATE_FITS
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
