#version 450
// The rasteriser: one workgroup per 16x16 screen tile, one invocation per pixel. The tile's splat
// list (from the binning passes) is walked in batches staged in shared memory; each pixel sums
// c * exp(-q / 2) over the splats whose 3-sigma ellipse holds it (order-free accumulated blending).
//
// TRAIN=0: writes the blended RGB, clamped to [0, 1] (render).
// TRAIN=1: full-image MSE against the target: the tile's squared error goes into loss_log[slot];
//   then the backward pass walks the same list again, 64 splats per batch: invocation
//   (quarter, splat) accumulates that splat's 8 gradients over the quarter's 64 pixels in
//   registers, the 4 quarters are summed in shared memory and added to the global gradients with
//   one float atomic per parameter and (tile, splat) pair. WRITE_IMAGE=1 also writes the unclamped
//   blend (tests).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_atomic_float : require

#include "splat_common.glsl"

layout(local_size_x = TILE * TILE) in;

layout(std430, binding = 0) readonly buffer Params { float params[]; };
layout(std430, binding = 1) readonly buffer TileOffsets { uint tile_offsets[]; };
layout(std430, binding = 2) readonly buffer Pairs { uint pairs[]; };
#if TRAIN
layout(std430, binding = 3) readonly buffer Target { float target[]; }; // RGB floats
layout(std430, binding = 4) buffer Grads { float grads[]; };
layout(std430, binding = 5) buffer LossLog { float loss_log[]; };
#if WRITE_IMAGE
layout(std430, binding = 6) writeonly buffer Image { float image_out[]; };
#endif
#else
layout(std430, binding = 3) writeonly buffer Image { float image_out[]; };
#endif

#define FWD_BATCH (TILE * TILE)
#define BWD_BATCH 64
#define QUARTERS (TILE * TILE / BWD_BATCH) // pixel groups of the backward pass (4 rows each)

// Splat i as evaluated per pixel: (x, y, 1 / l11, l21) and (1 / l22, r, g, b).
shared vec4 s_geom[FWD_BATCH];
shared vec4 s_color[FWD_BATCH];
#if TRAIN
shared uint s_index[BWD_BATCH];
shared vec3 s_residual[TILE * TILE]; // d loss / d pixel
shared float s_error[TILE * TILE];
shared vec4 s_grad[QUARTERS][BWD_BATCH][2];
#endif

void stage(uint slot, uint splat) {
    uint o = splat * SPLAT_PARAMS;
    s_geom[slot] = vec4(params[o], params[o + 1], 1.0 / params[o + 2], params[o + 3]);
    s_color[slot] = vec4(1.0 / params[o + 4], params[o + 5], params[o + 6], params[o + 7]);
}

// Whitened offset z = L^-1 (p - mu) of pixel centre p from staged splat k.
vec2 whiten(uint k, vec2 p) {
    vec4 g = s_geom[k];
    float z1 = (p.x - g.x) * g.z;
    float z2 = (p.y - g.y - g.w * z1) * s_color[k].x;
    return vec2(z1, z2);
}

void main() {
    const uint tile = gl_WorkGroupID.x + pc.tile_base;
    const uint tid = gl_LocalInvocationID.x;
    const uint tx = tile % pc.tiles_x, ty = tile / pc.tiles_x;
    const uint px = tx * TILE + tid % TILE, py = ty * TILE + tid / TILE;
    const bool inside = px < pc.width && py < pc.height;
    const vec2 centre = vec2(px, py) + 0.5;
    const uint begin = min(tile_offsets[tile], pc.capacity);
    const uint end = min(tile_offsets[tile + 1], pc.capacity);

    // ---- forward ----
    vec3 colour = vec3(0.0);
    for (uint b = begin; b < end; b += FWD_BATCH) {
        uint n = min(end - b, uint(FWD_BATCH));
        if (tid < n) stage(tid, pairs[b + tid]);
        barrier();
        for (uint k = 0; k < n; ++k) {
            vec2 z = whiten(k, centre);
            float q = dot(z, z);
            if (q <= CUTOFF_Q) colour += exp(-0.5 * q) * s_color[k].yzw;
        }
        barrier();
    }

    const uint pixel = py * pc.width + px;
#if !TRAIN
    if (inside) {
        vec3 c = clamp(colour, 0.0, 1.0);
        image_out[pixel * 3] = c.r;
        image_out[pixel * 3 + 1] = c.g;
        image_out[pixel * 3 + 2] = c.b;
    }
#else
#if WRITE_IMAGE
    if (inside) {
        image_out[pixel * 3] = colour.r;
        image_out[pixel * 3 + 1] = colour.g;
        image_out[pixel * 3 + 2] = colour.b;
    }
#endif
    // ---- loss ----
    vec3 diff = vec3(0.0);
    if (inside) diff = colour - vec3(target[pixel * 3], target[pixel * 3 + 1], target[pixel * 3 + 2]);
    s_residual[tid] = pc.loss_scale * diff; // 0 outside the image: those pixels add nothing
    s_error[tid] = dot(diff, diff);
    barrier();
    for (uint stride = TILE * TILE / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s_error[tid] += s_error[tid + stride];
        barrier();
    }
    if (tid == 0) atomicAdd(loss_log[pc.slot], s_error[0] * (pc.loss_scale * 0.5));

    // ---- backward ----
    const uint lane = tid % BWD_BATCH, quarter = tid / BWD_BATCH;
    const uint row0 = quarter * (TILE / QUARTERS);
    for (uint b = begin; b < end; b += BWD_BATCH) {
        uint n = min(end - b, uint(BWD_BATCH));
        if (tid < n) {
            uint splat = pairs[b + tid];
            s_index[tid] = splat;
            stage(tid, splat);
        }
        barrier();
        vec4 ga = vec4(0.0), gb = vec4(0.0); // d loss / d (x, y, l11, l21), (l22, r, g, b)
        if (lane < n) {
            vec4 g = s_geom[lane], c = s_color[lane];
            float inv11 = g.z, inv22 = c.x, l21 = g.w;
            for (uint r = 0; r < TILE / QUARTERS; ++r) {
                float cy = float(ty * TILE + row0 + r) + 0.5;
                for (uint col = 0; col < TILE; ++col) {
                    uint p = (row0 + r) * TILE + col;
                    float cx = float(tx * TILE + col) + 0.5;
                    float z1 = (cx - g.x) * inv11;
                    float z2 = (cy - g.y - l21 * z1) * inv22;
                    float q = z1 * z1 + z2 * z2;
                    if (q > CUTOFF_Q) continue;
                    float a = exp(-0.5 * q);
                    vec3 res = s_residual[p];
                    gb.yzw += a * res;                    // d / d colour
                    float gq = -0.5 * a * dot(res, c.yzw); // d / d q
                    float gz2 = 2.0 * z2 * gq;
                    float gz1 = 2.0 * z1 * gq - gz2 * l21 * inv22;
                    ga.x -= gz1 * inv11;      // x
                    ga.y -= gz2 * inv22;      // y
                    ga.z -= gz1 * z1 * inv11; // l11
                    ga.w -= gz2 * z1 * inv22; // l21
                    gb.x -= gz2 * z2 * inv22; // l22
                }
            }
        }
        s_grad[quarter][lane][0] = ga;
        s_grad[quarter][lane][1] = gb;
        barrier();
        if (tid < n) {
            vec4 sa = vec4(0.0), sb = vec4(0.0);
            for (uint k = 0; k < QUARTERS; ++k) {
                sa += s_grad[k][tid][0];
                sb += s_grad[k][tid][1];
            }
            if (any(notEqual(sa, vec4(0.0))) || any(notEqual(sb, vec4(0.0)))) {
                uint o = s_index[tid] * SPLAT_PARAMS;
                for (uint k = 0; k < 4; ++k) {
                    atomicAdd(grads[o + k], sa[k]);
                    atomicAdd(grads[o + 4 + k], sb[k]);
                }
            }
        }
        barrier();
    }
#endif
}
