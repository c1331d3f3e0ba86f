// Dense learnable feature grid (grid_h x grid_w x GRID_C, cell-centred: node (i, j) sits at
// uv = ((i + 0.5) / grid_w, (j + 0.5) / grid_h), clamped at the borders) sampled bilinearly,
// followed by positional terms:
//   ENC_SUBCELL:  sin(pi * fx), sin(pi * fy), fx/fy the position between neighbouring nodes,
//                 a bump that lets the MLP bend the bilinear ramp inside each cell;
//   ENC_OCTAVES:  per octave k: sin/cos(2 pi 2^k u), sin/cos(2 pi 2^k v), global Fourier features.
#if GRID_C + 2 * ENC_SUBCELL + 4 * ENC_OCTAVES != IN_DIM
#error "IN_DIM does not match the dense grid encoding terms"
#endif

const int ENC_GRAD_DIM = GRID_C;

struct GridTap {
    int cell[4];   // cell indices (y * grid_w + x) of the four neighbours
    float w[4];    // bilinear weights
    vec2 f;        // fractional position between the nodes
};

GridTap grid_tap(vec2 uv) {
    vec2 p = uv * vec2(pc.grid_w, pc.grid_h) - 0.5;
    vec2 fl = floor(p);
    GridTap t;
    t.f = p - fl;
    ivec2 hi = ivec2(pc.grid_w, pc.grid_h) - 1;
    ivec2 c0 = clamp(ivec2(fl), ivec2(0), hi);
    ivec2 c1 = clamp(ivec2(fl) + 1, ivec2(0), hi);
    int gw = int(pc.grid_w);
    t.cell[0] = c0.y * gw + c0.x;
    t.cell[1] = c0.y * gw + c1.x;
    t.cell[2] = c1.y * gw + c0.x;
    t.cell[3] = c1.y * gw + c1.x;
    t.w[0] = (1.0 - t.f.x) * (1.0 - t.f.y);
    t.w[1] = t.f.x * (1.0 - t.f.y);
    t.w[2] = (1.0 - t.f.x) * t.f.y;
    t.w[3] = t.f.x * t.f.y;
    return t;
}

// The four neighbours' features, as loaded (encoding.glsl's optional split of encode).
#define ENC_HAS_FETCH 1
struct EncFetch {
    float corner[4 * GRID_C]; // neighbour k's feature c at k * GRID_C + c
};

EncFetch encode_fetch(vec2 uv) {
    GridTap t = grid_tap(uv);
    EncFetch f;
    for (int k = 0; k < 4; ++k)
        for (int c = 0; c < GRID_C; ++c) f.corner[k * GRID_C + c] = ENC_PARAM(t.cell[k] * GRID_C + c);
    return f;
}

// The tap is worked out again from uv rather than carried in EncFetch: a few arithmetic
// instructions, where carrying it would hold ten more registers across the tile before.
void encode_finish(vec2 uv, EncFetch fetched, out float x[IN_PAD]) {
    GridTap t = grid_tap(uv);
    for (int c = 0; c < GRID_C; ++c) {
        float v = 0.0;
        for (int k = 0; k < 4; ++k) v += t.w[k] * fetched.corner[k * GRID_C + c];
        x[c] = v;
    }
    int n = GRID_C;
#if ENC_SUBCELL
    x[n++] = sin(PI * t.f.x);
    x[n++] = sin(PI * t.f.y);
#endif
    for (int o = 0; o < ENC_OCTAVES; ++o) {
        float w = 2.0 * PI * float(1 << o);
        x[n++] = sin(w * uv.x);
        x[n++] = cos(w * uv.x);
        x[n++] = sin(w * uv.y);
        x[n++] = cos(w * uv.y);
    }
    for (int i = IN_DIM; i < IN_PAD; ++i) x[i] = 0.0;
}

void encode(vec2 uv, out float x[IN_PAD]) { encode_finish(uv, encode_fetch(uv), x); }

// The fixed-point gradients' groups (encoding_state.glsl): the grid's cells are one.
uint enc_cell_group(uint cell) { return 0u; }
uint enc_group_cells(uint group) { return pc.grid_w * pc.grid_h; }

#ifdef ENC_CELL_GRAD
void encode_backward(vec2 uv, float dx[ENC_GRAD_DIM]) {
    GridTap t = grid_tap(uv);
    for (int k = 0; k < 4; ++k) {
        float g[GRID_C];
        for (int c = 0; c < GRID_C; ++c) g[c] = t.w[k] * dx[c];
        ENC_CELL_GRAD(uint(t.cell[k]), 0u, g);
    }
}
#endif
