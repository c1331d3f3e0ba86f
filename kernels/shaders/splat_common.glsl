// Shared by the splat kernels: push constants, the per-splat parameter layout, the Gaussian's
// screen footprint (tile rectangle) and its evaluation at a pixel centre.
//
// A splat is 8 floats: x, y (centre, pixels), l11, l21, l22 (Cholesky factor L of the covariance,
// Sigma = L L^T, pixels), r, g, b (colour with opacity folded in). A pixel centre p receives
// c * exp(-q / 2) with q = |L^-1 (p - mu)|^2 while q <= CUTOFF_Q (3 sigma), and 0 beyond.
// Mirrors the first 80 bytes of ff::engine::detail::SplatPush (the engine's push constants).
layout(push_constant) uniform Push {
    uint width, height, tiles_x, tiles_y; // target / render size in pixels; tile grid
    uint count, capacity, slot, tile_base; // splats; pair buffer entries; loss log slot; first tile
    float lr_position, lr_cholesky, lr_color, beta1;
    float beta2, epsilon, bias_correction1, bias_correction2; // bias corrections: 1 - beta^t
    float loss_scale; // d loss / d pixel = loss_scale * (pixel - target): 2 / (3 W H)
    float min_scale;  // Cholesky diagonal floor (pixels), keeps L invertible
    float max_scale;  // Cholesky entries' bound (pixels), keeps footprints bounded
    uint pad0;
} pc;

#define SPLAT_PARAMS 8
#define TILE 16
const float CUTOFF_Q = 9.0; // (3 sigma)^2

// Inclusive tile rectangle (x0, y0, x1, y1) the 3-sigma box of a splat touches; empty when
// x0 > x1 or y0 > y1. One pixel of margin keeps it conservative against rounding: the exact
// test is per pixel.
ivec4 splat_tile_rect(float x, float y, float l11, float l21, float l22) {
    float rx = 3.0 * abs(l11) + 1.0;
    float ry = 3.0 * sqrt(l21 * l21 + l22 * l22) + 1.0;
    // Pixel i has its centre at i + 0.5.
    float px0 = max(floor(x - rx - 0.5), 0.0), px1 = min(ceil(x + rx - 0.5), float(pc.width) - 1.0);
    float py0 = max(floor(y - ry - 0.5), 0.0), py1 = min(ceil(y + ry - 0.5), float(pc.height) - 1.0);
    if (!(px0 <= px1 && py0 <= py1)) return ivec4(1, 1, 0, 0); // off screen, or NaN
    return ivec4(int(px0) / TILE, int(py0) / TILE, int(px1) / TILE, int(py1) / TILE);
}
