// Per-sample MLP, one invocation per sample, fp32, activations kept in registers. The including
// kernel defines MLP_W(i): parameter i of the flat MLP vector (shared memory or a buffer).
// Padded rows and columns are never touched: loops run over the logical widths only.
#ifndef FF_MLP_GLSL
#define FF_MLP_GLSL

#ifndef MLP_W
#error "define MLP_W(i) before including mlp.glsl"
#endif

float mlp_act[MATRICES][MAXW];  // mlp_act[l]: input of matrix l (mlp_act[0]: the encoding)
float mlp_dact[MATRICES][MAXW]; // d activation / d z at the outputs of matrix l
float mlp_out[OUT_PAD];         // network output (after the output activation)

void mlp_forward() {
    for (int l = 0; l < MATRICES; ++l) {
        int kind = l == LAYERS ? OUTPUT_ACT : HIDDEN_ACT;
        for (int o = 0; o < OUT_L(l); ++o) {
            float z = MLP_W(B_OFF(l) + o);
            int row = W_OFF(l) + o * IN_PAD_L(l);
            for (int i = 0; i < IN_L(l); ++i) z += MLP_W(row + i) * mlp_act[l][i];
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
        for (int o = 0; o < OUT_L(l); ++o) g += MLP_W(W_OFF(l) + o * IN_PAD_L(l) + i) * delta[o];
        dx[i] = g;
    }
}

#endif
