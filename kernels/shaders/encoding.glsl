// The input encoding interface the MLP kernels see. An encoding file provides:
//   const int ENC_GRAD_DIM;                  leading inputs that carry learnable gradients
//   void encode(vec2 uv, out float x[IN_PAD]) fills IN_DIM inputs, zero padding after them
//   void encode_backward(vec2 uv, float dx[ENC_GRAD_DIM]) scatters dLoss/dx into its parameters
// and, optionally (ENC_HAS_FETCH), encode split in two, so the training step can have a tile's
// parameter loads in flight while it trains on the tile before:
//   struct EncFetch                          the raw parameters encode reads for one uv
//   EncFetch encode_fetch(vec2 uv)            loads them, and nothing else
//   void encode_finish(vec2 uv, EncFetch f, out float x[IN_PAD])  encode from them
// (an encoding without the split fetches nothing ahead: encode_finish calls encode)
// and reads its parameters through the including kernel's macros:
//   ENC_PARAM(i)           parameter i: feature i % ENC_CELL_FEATURES of optimizer cell
//                          i / ENC_CELL_FEATURES (where the parameters live in the training
//                          state's records, train_step.comp finds the cell's record from i)
//   ENC_CELL_GRAD(cell, group, g)  add g (float[ENC_CELL_FEATURES]) to the gradients of optimizer
//                          cell `cell` (parameters cell * ENC_CELL_FEATURES + f), of fixed-point
//                          group `group` (below). encode_backward must call it once for every
//                          cell the sample reads, whatever g, and no more times than the
//                          descriptor's cells_read says: the sparse and lazy optimizers run
//                          encode_backward with a visitor in this macro's place to find the cells
//                          a step's samples read, noting them in an array of that size
//                          (optimizer.comp; in loops the compiler unrolls, the array stays in
//                          registers)
// and describes the groups its cells fall in for the fixed-point gradients (encoding_state.glsl:
// cells that share a step's reads, such as a hash level):
//   uint enc_cell_group(uint cell)          the group of a cell
//   uint enc_group_cells(uint group)        how many cells the group has
// An encoding whose leading groups alone read its leading gradient inputs (a hash grid's coarsest
// levels; the host's EncodingDescriptor::group_inputs) may also have them summed apart: with
// ENC_DEFERRED_GROUPS = n, encode_backward leaves groups [0, n) out (the training step hands
// their inputs' gradients to encoding_deferred_sums.comp), and with ENC_DEFERRED_PASS as well it
// takes only those of them for which the pass's bool enc_deferred_pass_takes(uint group) holds
// (the set it sums).
// The descriptor (kernels/src/encodings/) defines its glsl_define, which selects the file below;
// a new encoding is a new file here plus one #elif.
#ifndef ENC_DEFERRED_GROUPS
#define ENC_DEFERRED_GROUPS 0
#endif

#if defined(ENCODING_DENSE_GRID)
#include "encoding_dense_grid.glsl"
#elif defined(ENCODING_COORDS)
#include "encoding_coords.glsl"
#elif defined(ENCODING_HASH_GRID)
#include "encoding_hash_grid.glsl"
#elif defined(ENCODING_FREQUENCY)
#include "encoding_frequency.glsl"
#else
#error "no encoding selected (the descriptor's glsl_define: ENCODING_DENSE_GRID, ...)"
#endif

#ifndef ENC_HAS_FETCH
struct EncFetch {
    uint unused; // GLSL has no empty structs
};
EncFetch encode_fetch(vec2 uv) { return EncFetch(0u); }
void encode_finish(vec2 uv, EncFetch f, out float x[IN_PAD]) { encode(uv, x); }
#endif
