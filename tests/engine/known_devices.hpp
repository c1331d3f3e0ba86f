// The device features the shipped kernels are built for, as values (DeviceFeatures), so that
// tests and ff-shipped-kernels can plan a device's kernels without the device.
#pragma once

#include "vulkan/device_features.hpp"

namespace ff::engine::test {

// An H100 or H200 as its Vulkan driver reports it (the two differ only in memory, which no choice
// reads below 32 GB): NV cooperative matrices with the 16x16x16 and 16x8 shapes, explicit
// workgroup layouts, 64-bit atomics, subgroups of 32, 48 KiB of shared memory, 132 SMs.
inline detail::DeviceFeatures nvidia_h100() {
    return {.name = "nvidia",
            .coopmat = true,
            .narrow_coopmat = true,
            .shared_blocks = true,
            .fixed_point_gradients = true,
            .cpu = false,
            .loops_capped = false,
            .subgroup_size = 32,
            .multiprocessors = 132,
            .max_shared = 48 * 1024,
            .max_invocations = 1024,
            .max_group_count = 2147483647u,
            .max_buffer_bytes = 4294967295ull,
            .memory_bytes = 80ull << 30};
}

// lavapipe (Mesa 22.3, Debian 12) as CI runs it: no cooperative matrix, subgroups of 8
// (ff-shipped-kernels --probe prints the features of the device a machine opens).
inline detail::DeviceFeatures lavapipe() {
    return {.name = "lavapipe",
            .coopmat = false,
            .narrow_coopmat = false,
            .shared_blocks = false,
            .fixed_point_gradients = true,
            .cpu = true,
            .loops_capped = true,
            .subgroup_size = 8,
            .multiprocessors = 0,
            .max_shared = 32 * 1024,
            .max_invocations = 1024,
            .max_group_count = 65535,
            .max_buffer_bytes = 134217728ull,
            .memory_bytes = 2ull << 30};
}

} // namespace ff::engine::test
