// Per-sample MLP, one invocation per sample, fp32, activations kept in registers. The including
// kernel defines MLP_W(i): parameter i of the flat MLP vector (shared memory or a buffer).
// Padded rows and columns are never touched: loops run over the logical widths only.

// LOOPS_CAPPED: the driver caps the loop iterations an invocation runs (llvmpipe: 65,535 loop
// back-edges in all, past which every loop exits and the results are silently wrong; a 128-wide
// MLP's forward pass of 5 hidden layers alone takes 66,000 one term an iteration). The inner
// products then take 8 terms an iteration (MLP_SUM8), the rest one at a time.
#define MLP_SUM8(term) \
    ((term(0) + term(1)) + (term(2) + term(3)) + ((term(4) + term(5)) + (term(6) + term(7))))

float mlp_act[MATRICES][MAXW];  // mlp_act[l]: input of matrix l (mlp_act[0]: the encoding)
float mlp_dact[MATRICES][MAXW]; // d activation / d z at the outputs of matrix l
float mlp_out[OUT_PAD];         // network output (after the output activation)

void mlp_forward() {
    for (int l = 0; l < MATRICES; ++l) {
        int kind = l == LAYERS ? OUTPUT_ACT : HIDDEN_ACT;
        for (int o = 0; o < OUT_L(l); ++o) {
            float z = MLP_W(B_OFF(l) + o);
            int row = W_OFF(l) + o * IN_PAD_L(l);
            int i = 0;
#if LOOPS_CAPPED
#define MLP_FORWARD_TERM(j) MLP_W(row + i + (j)) * mlp_act[l][i + (j)]
            for (; i + 8 <= IN_L(l); i += 8) z += MLP_SUM8(MLP_FORWARD_TERM);
#undef MLP_FORWARD_TERM
#endif
            for (; i < IN_L(l); ++i) z += MLP_W(row + i) * mlp_act[l][i];
            const float omega = OMEGA_L(l);
            z *= omega;
            float y = act_apply(kind, z);
            mlp_dact[l][o] = omega * act_derivative(kind, z, y);
            if (l < LAYERS) mlp_act[l + 1][o] = y;
            else mlp_out[o] = y;
        }
    }
}

// Given delta = dLoss/dz at the outputs of matrix l, returns dLoss/d(input of matrix l) for the
// first n inputs (n <= IN_L(l)).
void mlp_backprop(int l, float delta[MAXW], int n, out float dx[MAXW]) {
    for (int i = 0; i < n; ++i) {
        float g = 0.0;
        int o = 0;
#if LOOPS_CAPPED
#define MLP_BACKWARD_TERM(j) MLP_W(W_OFF(l) + (o + (j)) * IN_PAD_L(l) + i) * delta[o + (j)]
        for (; o + 8 <= OUT_L(l); o += 8) g += MLP_SUM8(MLP_BACKWARD_TERM);
#undef MLP_BACKWARD_TERM
#endif
        for (; o < OUT_L(l); ++o) g += MLP_W(W_OFF(l) + o * IN_PAD_L(l) + i) * delta[o];
        dx[i] = g;
    }
}
