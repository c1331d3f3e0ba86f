#include "device_cache.hpp"

#include <algorithm>
#include <map>
#include <mutex>

namespace ff::neural {

ff::engine::Device shared_device(const std::string& selector) {
    static std::mutex mutex;
    // Never destroyed: tearing Vulkan devices down from a static destructor at exit (or plugin
    // unload) races the driver's own teardown. The process exit releases them.
    static auto& devices = *new std::map<std::string, ff::engine::Device>();
    // Held while opening too: two nodes asking for the same device at once must not open it twice.
    std::lock_guard lock(mutex);
    if (auto it = devices.find(selector); it != devices.end()) return it->second;
    try {
        ff::engine::Device device = ff::engine::Device::open(selector);
        devices.emplace(selector, device);
        return device;
    } catch (const ff::engine::EngineError& e) {
        throw Error("cannot open compute device '" + selector + "': " + e.what());
    }
}

void open_device_early(const Node& node, const std::string& device_param) {
    shared_device(device_selector(node, device_param));
}

std::string device_selector(const Node& node, const std::string& device_param) {
    if (!device_param.empty()) return device_param;
    std::string run_device = node.device();
    return run_device.empty() ? "auto" : run_device;
}

void check_device_param(const std::string& value) {
    if (value.empty() || value == "auto" || value == "cpu") return;
    const bool digits = value.size() <= 9 && std::all_of(value.begin(), value.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
    if (!digits)
        throw ParamError("device", "device '" + value + "' is not 'auto', 'cpu' or a device index");
    const std::vector<ff::engine::DeviceInfo> devices = ff::engine::list_devices();
    if (devices.empty()) return;
    if (std::stoul(value) < devices.size()) return;
    std::string present;
    for (const ff::engine::DeviceInfo& d : devices)
        present += (present.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
    throw ParamError("device", "device index " + value + " is out of range: this machine has " +
                                   std::to_string(devices.size()) + " Vulkan device" +
                                   (devices.size() == 1 ? "" : "s") + " (" + present + ")");
}

} // namespace ff::neural
