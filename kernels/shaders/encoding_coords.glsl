// Coordinates alone: x = (2u - 1, 2v - 1), the [-1, 1] input of a SIREN. No learnable parameters:
// encode_backward has nothing to scatter. ENC_GRAD_DIM is 1 because GLSL has no empty arrays; the
// one gradient the MLP kernels compute for it is discarded.
#if IN_DIM != 2
#error "IN_DIM must be 2 for the coords encoding"
#endif

const int ENC_GRAD_DIM = 1;

void encode(vec2 uv, out float x[IN_PAD]) {
    x[0] = 2.0 * uv.x - 1.0;
    x[1] = 2.0 * uv.y - 1.0;
    for (int i = IN_DIM; i < IN_PAD; ++i) x[i] = 0.0;
}

// No cells: one nominal fixed-point gradient group (encoding_state.glsl).
uint enc_cell_group(uint cell) { return 0u; }
uint enc_group_cells(uint group) { return 1u; }

#if ENC_DEFERRED_GROUPS
#error "coordinates have no parameters: no groups to defer (encoding.glsl)"
#endif
#ifdef ENC_CELL_GRAD
void encode_backward(vec2 uv, float dx[ENC_GRAD_DIM]) {}
#endif
