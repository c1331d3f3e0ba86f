// The shared tile's inputs and forward pass (mlp_coopmat_split.glsl's second part: included once,
// by it, after its layout and weight blocks).
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
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) s_slice[CM_SLICE(CM_X0_COL_OF(tile) + i) + CM_STAGE_ROW] = float16_t(x[i]);
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
// Every invocation, at `tile`'s start: the tile's set of input columns chosen (the staging
// subgroups wrote the other set).
void cm_take_staged_inputs(uint tile) { cm_x0_col = CM_X0_COL_OF(tile); }
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
// the first matrix's (CM_ENDS_BY_COLUMNS): the subgroup's own, held.
CM_H cm_w_columns(int l, uint kb) {
#if CM_ENDS_BY_COLUMNS
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
        [[unroll]] for (uint kb = 0; kb < IN_PAD_L(l) / 16; ++kb) {
            const CM_H w = cm_w_columns(l, kb);
            [[unroll]] for (uint g = 0; g < CM_ROW_GROUP; ++g) {
                CM_H a;
                coopMatLoadNV(a, s_slice, CM_SLICE(SLICE_COL(l) + kb * 16) + CM_RB(rb0 + g) * 16, RS, true);
                acc[g] = coopMatMulAddNV(a, w, acc[g]);
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
    // Both row blocks' sums side by side: two independent chains of products hide each other's
    // latency, where one block after the other made one chain of twice the length (the same bits).
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
