// The encoding's training state, one record of ENC_RECORD words per optimizer cell (the layout of
// kernels/src/encoding_state.hpp, which the host reads and writes, and whose record size the host
// passes in as ENC_RECORD): the cell's gradient, Adam's m
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

#ifndef ENC_RECORD
#error "ENC_RECORD (words per record) comes from the host's model defines (encoding_state.hpp)"
#endif
// Where each quantity lies in a record (its word offsets), and word w of a cell's record.
#define ENC_GRAD_WORD(f) uint(f)
#define ENC_M_WORD(f) (uint(ENC_CELL_FEATURES) + uint(f))
#define ENC_V_WORD(f) (uint(2 * ENC_CELL_FEATURES) + uint(f))
#define ENC_TOUCHED_WORD uint(3 * ENC_CELL_FEATURES)
#define ENC_STAMP_WORD uint(3 * ENC_CELL_FEATURES + 1)
#define ENC_WORD_AT(cell, w) ((cell) * uint(ENC_RECORD) + (w))
#define ENC_GRAD_AT(cell, f) ENC_WORD_AT(cell, ENC_GRAD_WORD(f))
#define ENC_TOUCHED_AT(cell) ENC_WORD_AT(cell, ENC_TOUCHED_WORD)
#define ENC_STAMP_AT(cell) ENC_WORD_AT(cell, ENC_STAMP_WORD)
#define ENC_COUNT_AT(parity) (pc.cells * uint(ENC_RECORD) + (parity))
#define ENC_LIST_AT(j) (pc.cells * uint(ENC_RECORD) + 2u + (j))

#endif
