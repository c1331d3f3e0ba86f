#version 450
// Binning, pass 1: every splat adds 1 to the pair count of each screen tile its 3-sigma box
// touches. splat_scan.comp turns the counts into per-tile list offsets (and clears them again).
#extension GL_GOOGLE_include_directive : require

#include "splat_common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Params { float params[]; };
layout(std430, binding = 1) buffer TileCounts { uint tile_counts[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uint o = i * SPLAT_PARAMS;
    ivec4 r = splat_tile_rect(params[o], params[o + 1], params[o + 2], params[o + 3], params[o + 4]);
    for (int ty = r.y; ty <= r.w; ++ty)
        for (int tx = r.x; tx <= r.z; ++tx) atomicAdd(tile_counts[uint(ty) * pc.tiles_x + uint(tx)], 1u);
}
