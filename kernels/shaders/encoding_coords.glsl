// Coordinates alone: x = (2u - 1, 2v - 1), the [-1, 1] input of a SIREN. No learnable parameters
// (encoding_parameterless.glsl).
#if IN_DIM != 2
#error "IN_DIM must be 2 for the coords encoding"
#endif

void encode(vec2 uv, out float x[IN_PAD]) {
    x[0] = 2.0 * uv.x - 1.0;
    x[1] = 2.0 * uv.y - 1.0;
    for (int i = IN_DIM; i < IN_PAD; ++i) x[i] = 0.0;
}

#include "encoding_parameterless.glsl"
