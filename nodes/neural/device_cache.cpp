#include "device_cache.hpp"

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

std::string device_selector(const Node& node, const std::string& device_param) {
    if (!device_param.empty()) return device_param;
    std::string run_device = node.device();
    return run_device.empty() ? "auto" : run_device;
}

} // namespace ff::neural
