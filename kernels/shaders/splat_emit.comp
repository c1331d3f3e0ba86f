#version 450
// Binning, pass 3: every splat appends its index to the list of each tile it touches (the same
// rectangle as splat_bin_count.comp). Blending is order-free, so the lists need no sorting.
// Entries past the pair buffer's capacity are dropped (the host grows the buffer: stats[0]).
#extension GL_GOOGLE_include_directive : require

#include "splat_common.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Params { float params[]; };
layout(std430, binding = 1) buffer TileCursors { uint tile_cursors[]; };
layout(std430, binding = 2) writeonly buffer Pairs { uint pairs[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    uint o = i * SPLAT_PARAMS;
    ivec4 r = splat_tile_rect(params[o], params[o + 1], params[o + 2], params[o + 3], params[o + 4]);
    for (int ty = r.y; ty <= r.w; ++ty)
        for (int tx = r.x; tx <= r.z; ++tx) {
            uint slot = atomicAdd(tile_cursors[uint(ty) * pc.tiles_x + uint(tx)], 1u);
            if (slot < pc.capacity) pairs[slot] = i;
        }
}
