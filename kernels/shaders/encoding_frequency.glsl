// NeRF's frequency (positional) encoding: x = (2u - 1, 2v - 1), then per octave k < FREQ_OCTAVES
// sin(2^k pi u), cos(2^k pi u), sin(2^k pi v), cos(2^k pi v). No learnable parameters
// (encoding_parameterless.glsl).

// IN_DIM is the descriptor's input_width, 2 + 4 * octaves: the octaves follow from it, so the two
// cannot disagree.
const int FREQ_OCTAVES = (IN_DIM - 2) / 4;

// sin and cos of pi * s, s = 2^k * u, taken of pi * t with t = s - 2n in [-1, 1): their argument
// stays in [-pi, pi), where GLSL bounds their error, at every octave. s is exact (a float times a
// power of two), and the reduction loses only the rounding of s + 1 (about 2^-24 * max(s, 1),
// float's own precision of s).
vec2 sin_cos_pi(float s) {
    float t = mod(s + 1.0, 2.0) - 1.0;
    return vec2(sin(PI * t), cos(PI * t));
}

void encode(vec2 uv, out float x[IN_PAD]) {
    x[0] = 2.0 * uv.x - 1.0;
    x[1] = 2.0 * uv.y - 1.0;
    for (int k = 0; k < FREQ_OCTAVES; ++k) {
        float scale = float(1 << k);
        vec2 su = sin_cos_pi(scale * uv.x), sv = sin_cos_pi(scale * uv.y);
        x[2 + 4 * k] = su.x;
        x[3 + 4 * k] = su.y;
        x[4 + 4 * k] = sv.x;
        x[5 + 4 * k] = sv.y;
    }
    for (int i = IN_DIM; i < IN_PAD; ++i) x[i] = 0.0;
}

#include "encoding_parameterless.glsl"
