#version 450
// Binning, pass 2 (one workgroup): exclusive prefix sum of the per-tile pair counts into
// offsets[0..tiles] (offsets[tiles] = total pairs), a copy into the emit cursors, and counts reset
// to 0 for the next step. stats[0] keeps the largest total seen, so the host can tell when the
// pair buffer (pc.capacity entries) was too small.
#extension GL_GOOGLE_include_directive : require

#include "splat_common.glsl"

#define THREADS 256
layout(local_size_x = THREADS) in;

layout(std430, binding = 0) buffer TileCounts { uint tile_counts[]; };
layout(std430, binding = 1) writeonly buffer TileOffsets { uint tile_offsets[]; };
layout(std430, binding = 2) writeonly buffer TileCursors { uint tile_cursors[]; };
layout(std430, binding = 3) buffer Stats { uint stats[]; };

shared uint s_sum[THREADS];

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint tiles = pc.tiles_x * pc.tiles_y;
    const uint chunk = (tiles + THREADS - 1) / THREADS; // consecutive tiles per thread
    const uint begin = min(tid * chunk, tiles), end = min(begin + chunk, tiles);
    uint local_sum = 0;
    for (uint t = begin; t < end; ++t) local_sum += tile_counts[t];
    s_sum[tid] = local_sum;
    barrier();
    if (tid == 0) { // 256 additions: cheaper than a tree's barriers at this size
        uint run = 0;
        for (uint k = 0; k < THREADS; ++k) {
            uint v = s_sum[k];
            s_sum[k] = run;
            run += v;
        }
        tile_offsets[tiles] = run;
        stats[0] = max(stats[0], run);
    }
    barrier();
    uint run = s_sum[tid];
    for (uint t = begin; t < end; ++t) {
        uint c = tile_counts[t];
        tile_offsets[t] = run;
        tile_cursors[t] = run;
        tile_counts[t] = 0u;
        run += c;
    }
}
