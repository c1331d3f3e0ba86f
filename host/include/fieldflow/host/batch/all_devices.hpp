// `fieldflow batch --devices all`: the Vulkan devices this machine offers, learned from the neural
// plugin's Devices op (the host does not link the engine), and which of them a batch takes.
#pragma once

#include <fieldflow/host/op_registry.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

struct SeenDevice {
    uint32_t index = 0; // what `fieldflow run --device N` calls it
    std::string name;
    std::string type;   // "discrete", "integrated", "virtual", "cpu", "other"
    bool usable = false;
    std::string missing; // the required features it lacks, when not usable
};

// The devices in the Devices op's JSON ({"devices": [...]}). Throws std::runtime_error when the
// text is not that.
std::vector<SeenDevice> devices_from_json(const std::string& text);

// Runs the Devices op in this process. Throws std::runtime_error when no loaded plugin has it or
// it fails.
std::vector<SeenDevice> list_devices(const OpRegistry& registry);

struct AllDevices {
    std::vector<std::string> selectors; // what each image's run gets as --device: "0", "1", or "cpu"
    std::string text;                   // what `all` became, in words, for the batch's first line
};

// Every usable discrete GPU; where there is none, every usable GPU of another kind (integrated,
// virtual); where there is none of those either, the CPU driver ("cpu"), saying that no GPU was
// found. The same order of preference as a run's --device auto. Throws std::runtime_error when
// no device is usable, naming what each lacks.
AllDevices choose_all_devices(const std::vector<SeenDevice>& devices);

} // namespace fieldflow::host::batch
