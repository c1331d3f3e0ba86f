#version 450
// Box downsampling by an integer factor, one invocation per output pixel: the mean of its
// factor x factor block of the source, every channel. Remainder rows and columns that do not fill a
// block are dropped (output floor(width / factor) x floor(height / factor)). The block sum is
// compensated (Kahan), so large factors stay within float rounding of the exact mean.
layout(local_size_x = 256) in;

// The first members of the engine's 80-byte push-constant block (detail::PushConstants).
layout(push_constant) uniform Push {
    uint out_width, out_height, width, height; // output size; source size
    uint factor, channels;
} pc;

layout(std430, binding = 0) readonly buffer Source { float src[]; };
layout(std430, binding = 1) writeonly buffer Destination { float dst[]; };

void main() {
    const uint p = gl_GlobalInvocationID.x;
    if (p >= pc.out_width * pc.out_height) return;
    const uint ox = p % pc.out_width, oy = p / pc.out_width;
    const float inverse_area = 1.0 / (float(pc.factor) * float(pc.factor));
    for (uint c = 0; c < pc.channels; ++c) {
        precise float sum = 0.0, compensation = 0.0;
        for (uint y = oy * pc.factor; y < (oy + 1) * pc.factor; ++y) {
            const uint row = y * pc.width;
            for (uint x = ox * pc.factor; x < (ox + 1) * pc.factor; ++x) {
                precise float term = src[(row + x) * pc.channels + c] - compensation;
                precise float next = sum + term;
                compensation = (next - sum) - term;
                sum = next;
            }
        }
        dst[p * pc.channels + c] = sum * inverse_area;
    }
}
