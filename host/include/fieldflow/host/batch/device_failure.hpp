// Why an image's run failed, as far as its device is concerned: the batch retries an image on
// another device only when the run says its device failed, never for a fault of the image itself
// (a corrupt file, a bad value), which would fail the same way everywhere.
#pragma once

#include <fieldflow/host/batch/child_process.hpp>

#include <string>

namespace fieldflow::host::batch {

enum class DeviceFault {
    none,        // the image or the graph failed, or the run crashed: nothing says it was the device
    unavailable, // the device could not be opened (no such index, lacks a feature, driver refused)
    lost,        // the device was lost while the run used it (VK_ERROR_DEVICE_LOST)
    memory,      // the image's run did not fit the device's memory
};

// From the run's exit and its failure line (failure_line_of its log). Only a node failure
// (exit code 1) whose message is one of the engine's device errors counts: a crash (a signal)
// names no cause, and a graph or image rejected before running (exit 2) fails on any device.
DeviceFault device_fault_of(const ChildExit& exit, const std::string& failure_line);

// Whether the device itself is at fault, so that no further image should be sent to it: it
// could not be opened or was lost. Out of memory is the image's size on that device, not a
// broken device: other images still go there.
inline bool takes_device_out(DeviceFault fault) {
    return fault == DeviceFault::unavailable || fault == DeviceFault::lost;
}

} // namespace fieldflow::host::batch
