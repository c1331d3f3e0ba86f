#include "device_cache.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace ff::neural {

namespace {

// The open devices by selector, how many prepared nodes still hold each, and the threads that
// prepare started to open them. Never destroyed: tearing Vulkan devices down from a static
// destructor at exit (or plugin unload) races the driver's own teardown; the process exit
// releases what the nodes' releases did not.
struct DeviceCache {
    std::mutex opening; // one open at a time: two nodes asking at once must not open it twice
    std::mutex mutex;   // the maps; never held while a device opens, so release never waits for one
    std::map<std::string, ff::engine::Device> devices;
    std::map<std::string, int> holders;
    std::map<std::string, std::thread> openers;
};

DeviceCache& cache() {
    static DeviceCache& c = *new DeviceCache();
    return c;
}

} // namespace

ff::engine::Device shared_device(const std::string& selector) {
    DeviceCache& c = cache();
    const auto already_open = [&]() -> std::optional<ff::engine::Device> {
        std::lock_guard lock(c.mutex);
        if (auto it = c.devices.find(selector); it != c.devices.end()) return it->second;
        return std::nullopt;
    };
    if (std::optional<ff::engine::Device> device = already_open()) return *device;
    std::lock_guard opening(c.opening);
    if (std::optional<ff::engine::Device> device = already_open()) return *device; // opened meanwhile
    try {
        ff::engine::Device device = ff::engine::Device::open(selector);
        std::lock_guard lock(c.mutex);
        c.devices.emplace(selector, device);
        return device;
    } catch (const ff::engine::EngineError& e) {
        throw Error("cannot open compute device '" + selector + "': " + e.what());
    }
}

void open_device_early(const Node& node, const std::string& device_param) {
    const std::string selector = device_selector(node, device_param);
    DeviceCache& c = cache();
    std::lock_guard lock(c.mutex);
    ++c.holders[selector];
    if (c.devices.count(selector) || c.openers.count(selector)) return;
    // On a thread of its own, so that prepare returns at once: an interrupt meanwhile need not
    // wait for the driver (release below). A failure is left for execute to meet and report.
    c.openers.emplace(selector, std::thread([selector] {
        try {
            shared_device(selector);
        } catch (const std::exception&) {
        }
    }));
}

void release_device(const Node& node, const std::string& device_param) {
    const std::string selector = device_selector(node, device_param);
    DeviceCache& c = cache();
    std::thread opener;
    {
        std::lock_guard lock(c.mutex);
        auto held = c.holders.find(selector);
        if (held == c.holders.end() || --held->second > 0) return;
        c.holders.erase(held);
        if (auto it = c.openers.find(selector); it != c.openers.end()) {
            opener = std::move(it->second);
            c.openers.erase(it);
        }
    }
    if (opener.joinable()) {
        // An interrupted run ends now, not once the driver has opened a device nobody will use:
        // the thread is left to the process's end (an interrupt ends it with _exit), and touches
        // nothing but this never-destroyed cache.
        if (node.cancelled()) {
            opener.detach();
            return;
        }
        opener.join();
    }
    std::optional<ff::engine::Device> closing;
    {
        std::lock_guard lock(c.mutex);
        if (auto it = c.devices.find(selector); it != c.devices.end()) {
            closing = std::move(it->second);
            c.devices.erase(it);
        }
    }
    // Outside the lock: the device closes here, unless a node still holds a copy (then with it).
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
