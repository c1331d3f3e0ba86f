// What the engine's kernel choices read of a device, as a plain value: every plan (TrainTiling,
// the trainer's kernels) is a pure function of the model, the batch and these, so the kernels a
// device gets can be listed without the device (tests/engine/shipped_kernels.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace ff::engine::detail {

struct DeviceFeatures {
    std::string name;                   // for messages
    bool coopmat = false;               // the tensor-core kernels (GL_NV_cooperative_matrix 16x16x16)
    bool narrow_coopmat = false;        // ... and its fp16 -> fp32 shapes 16x8x16 and 16x8x8
    bool shared_blocks = false;         // VK_KHR_workgroup_memory_explicit_layout with 16-bit access
    bool fixed_point_gradients = false; // 64-bit integer buffer atomics (encoding_state.glsl's ENC_GRAD_FIXED)
    bool cpu = false;                   // a CPU driver (lavapipe)
    bool loops_capped = false;          // llvmpipe's cap on an invocation's loop iterations
    uint32_t subgroup_size = 0;
    uint32_t multiprocessors = 0;       // 0: not reported
    uint32_t max_shared = 0;            // maxComputeSharedMemorySize
    uint32_t max_invocations = 0;       // maxComputeWorkGroupInvocations
    uint32_t max_group_count = 0;       // maxComputeWorkGroupCount[0]
    uint64_t max_buffer_bytes = 0;      // DeviceImpl::max_buffer_bytes
    uint64_t memory_bytes = 0;          // the largest device-local heap
};

} // namespace ff::engine::detail
