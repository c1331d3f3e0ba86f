#version 450
// Luma of an RGB float image, one invocation per pixel: 0.299 R + 0.587 G + 0.114 B (Rec. 601,
// on the stored values), the same expression and order as the CPU Grayscale node.
layout(local_size_x = 256) in;

// The first members of the engine's 80-byte push-constant block (detail::PushConstants).
layout(push_constant) uniform Push {
    uint unused0, unused1, width, height;
} pc;

layout(std430, binding = 0) readonly buffer Source { float rgb[]; };
layout(std430, binding = 1) writeonly buffer Luma { float luma[]; };

void main() {
    const uint p = gl_GlobalInvocationID.x;
    if (p >= pc.width * pc.height) return;
    luma[p] = 0.299 * rgb[3 * p] + 0.587 * rgb[3 * p + 1] + 0.114 * rgb[3 * p + 2];
}
