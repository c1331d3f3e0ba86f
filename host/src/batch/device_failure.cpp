#include <fieldflow/host/batch/device_failure.hpp>

#include <fieldflow/host/cli.hpp>

namespace fieldflow::host::batch {

DeviceFault device_fault_of(const ChildExit& exit, const std::string& failure_line) {
    if (exit.signaled || exit.code != kExitNodeFailed) return DeviceFault::none;
    const auto says = [&](const char* text) { return failure_line.find(text) != std::string::npos; };
    // The phrases are the engine's (kernels/src/vulkan/vk_device.cpp, field/training_memory.cpp)
    // and the neural plugin's (nodes/neural/device_cache.cpp); tests/batch checks that they still
    // say so.
    if (says("cannot open compute device")) return DeviceFault::unavailable;
    if (says("the Vulkan device was lost")) return DeviceFault::lost;
    if (says("out of device memory") || says("of device memory, more than the")) return DeviceFault::memory;
    return DeviceFault::none;
}

} // namespace fieldflow::host::batch
