// The encoding's training state, one record of ENC_RECORD words per optimizer cell (the layout of
// kernels/src/encoding_state.hpp, which the host reads and writes): the cell's gradient, Adam's m
// and v (ENC_CELL_FEATURES floats each), the Adam step that last touched it, and the Adam steps it
// has taken (lazy dense Adam). After the records: two list lengths (alternate steps use alternate
// ones) and the list of the cells a step touched.
//
// One record rather than an array per quantity: a step's samples read and write a few cells at
// random, and each cell's gradient atomics, touched mark, stamp and moments then share one or two
// 32-byte sectors instead of missing the cache in five arrays (on an 8192x8192 photo, whose dense
// grid has 4.2 M cells, the arrays took the step from 18 to 94-190 us; bench/RESULTS.md).
//
// The including kernel binds the buffer as floats (enc_state: the gradients' atomics) or as
// 16-byte words (enc_state4: whole records, encoding_adam.glsl), and as uints (enc_state_u: marks,
// stamps, lengths, list); and defines pc.cells.
#ifndef FF_ENCODING_STATE_GLSL
#define FF_ENCODING_STATE_GLSL

#define ENC_RECORD uint(((3 * ENC_CELL_FEATURES + 2 + 3) / 4) * 4) // a multiple of 16 bytes
#define ENC_GRAD_AT(cell, f) ((cell) * ENC_RECORD + uint(f))
#define ENC_M_AT(cell, f) ((cell) * ENC_RECORD + uint(ENC_CELL_FEATURES) + uint(f))
#define ENC_V_AT(cell, f) ((cell) * ENC_RECORD + uint(2 * ENC_CELL_FEATURES) + uint(f))
#define ENC_TOUCHED_AT(cell) ((cell) * ENC_RECORD + uint(3 * ENC_CELL_FEATURES))
#define ENC_STAMP_AT(cell) ((cell) * ENC_RECORD + uint(3 * ENC_CELL_FEATURES + 1))
#define ENC_COUNT_AT(parity) (pc.cells * ENC_RECORD + (parity))
#define ENC_LIST_AT(j) (pc.cells * ENC_RECORD + 2u + (j))

#endif
