// The parts of encoding.glsl's interface that every encoding without learnable parameters shares
// (coords, frequency; the host's kernels/src/encodings/parameterless.hpp). ENC_GRAD_DIM is 1
// because GLSL has no empty arrays; the one gradient the MLP kernels compute for it is discarded,
// and encode_backward has nothing to scatter.
const int ENC_GRAD_DIM = 1;

// No cells: one nominal fixed-point gradient group (encoding_state.glsl).
uint enc_cell_group(uint cell) { return 0u; }
uint enc_group_cells(uint group) { return 1u; }

// No groups to defer either: the host defers only an encoding with group_inputs
// (choose_deferred_gradients), so ENC_DEFERRED_GROUPS is 0 here.
#ifdef ENC_CELL_GRAD
void encode_backward(vec2 uv, float dx[ENC_GRAD_DIM]) {}
#endif
