// One engine Device per selector, shared by every Train and Infer node, so a graph with several
// neural nodes opens the Vulkan device (and compiles its pipelines) once; opened by the nodes'
// prepare and closed by their release (plugin ABI 1.4) where the host calls them.
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/node.hpp>

#include <string>

namespace ff::neural {

// The device for `selector` ("auto", "cpu", "0", ...), opened on first use. Thread-safe. A failed
// open is not cached (the next call tries again) and is rethrown as ff::Error.
ff::engine::Device shared_device(const std::string& selector);

// A Train or Infer node's prepare (ABI 1.4): starts opening the device its execute will ask for
// on a thread of its own, while the nodes upstream run (an open is mostly the driver's own
// start), so that execute finds it open (or waits for the open under way), and
// counts the node as one of its holders. A failure is left for execute to meet and report.
void open_device_early(const Node& node, const std::string& device_param);

// The same node's release: once no prepared node holds the device, it closes (while the rest of
// the graph runs, rather than in the process's exit); in an interrupted run an open still under
// way is not waited for. A later shared_device opens it again.
void release_device(const Node& node, const std::string& device_param);

// The selector a node should use: its own `device` param if set, else the run's --device, else
// "auto".
std::string device_selector(const Node& node, const std::string& device_param);

// The `device` param's check before anything runs (validate): empty, 'auto', 'cpu' or the index
// of a Vulkan device present on this machine. Throws ff::ParamError("device") otherwise. Without a
// Vulkan driver no index is refused here: opening the device then says what is missing.
void check_device_param(const std::string& value);

} // namespace ff::neural
