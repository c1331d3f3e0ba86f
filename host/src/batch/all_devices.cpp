#include <fieldflow/host/batch/all_devices.hpp>

#include <fieldflow/host/diagnostics.hpp>
#include <fieldflow/host/scheduler.hpp>
#include <fieldflow/host/validate.hpp>

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace fieldflow::host::batch {
namespace {

bool is_gpu(const SeenDevice& d) { return d.type == "discrete" || d.type == "integrated" || d.type == "virtual"; }

std::string described(const SeenDevice& d) { return std::to_string(d.index) + " (" + d.name + ")"; }

} // namespace

std::vector<SeenDevice> devices_from_json(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("devices") || !j["devices"].is_array())
        throw std::runtime_error("the Devices op's output is not {\"devices\": [...]}");
    std::vector<SeenDevice> out;
    for (const nlohmann::json& d : j["devices"]) {
        if (!d.is_object() || !d.value("index", nlohmann::json()).is_number_unsigned())
            throw std::runtime_error("the Devices op listed a device without an index");
        SeenDevice s;
        s.index = d["index"].get<uint32_t>();
        s.name = d.value("name", "");
        s.type = d.value("type", "");
        s.usable = d.value("usable", false);
        s.missing = d.value("missing", "");
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<SeenDevice> list_devices(const OpRegistry& registry) {
    if (!registry.find("Devices"))
        throw std::runtime_error("--devices all needs the neural plugin (its Devices op lists the "
                                 "Vulkan devices), and no loaded plugin has it");
    Diagnostics diags("<devices>");
    const std::optional<Graph> graph =
        load_graph_text("fieldflow: 1\nnodes:\n  devices: {op: Devices}\n", {}, registry, diags);
    if (!graph) throw std::runtime_error("cannot run the Devices op");
    RunOptions options;
    options.jobs = 1;
    const RunResult run = run_graph(*graph, options);
    const NodeResult& node = run.nodes.at(0);
    const auto json = node.outputs.find("json");
    if (run.any_failed() || json == node.outputs.end() || !json->second)
        throw std::runtime_error("the Devices op failed" + (node.message.empty() ? "" : ": " + node.message));
    const std::vector<std::byte>& bytes = json->second->bytes;
    return devices_from_json(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

AllDevices choose_all_devices(const std::vector<SeenDevice>& devices) {
    AllDevices all;
    std::vector<const SeenDevice*> gpus;
    for (const char* pass : {"discrete", "other GPUs"}) {
        for (const SeenDevice& d : devices)
            if (d.usable && (pass == std::string("discrete") ? d.type == "discrete" : is_gpu(d)))
                gpus.push_back(&d);
        if (!gpus.empty()) break;
    }
    if (!gpus.empty()) {
        all.text = std::to_string(gpus.size()) + " GPU" + (gpus.size() == 1 ? "" : "s") + ":";
        for (const SeenDevice* d : gpus) {
            all.selectors.push_back(std::to_string(d->index));
            all.text += " " + described(*d) + (d == gpus.back() ? "" : ",");
        }
        return all;
    }
    for (const SeenDevice& d : devices)
        if (d.usable && d.type == "cpu") {
            all.selectors = {"cpu"};
            all.text = "no GPU found, only the CPU driver " + described(d) + ": running on cpu";
            return all;
        }
    std::string seen;
    for (const SeenDevice& d : devices)
        seen += "; " + described(d) + (d.usable ? " is of type " + d.type : " lacks " + d.missing);
    throw std::runtime_error(devices.empty() ? "--devices all: no Vulkan device found (is a Vulkan driver installed?)"
                                             : "--devices all: no usable Vulkan device" + seen);
}

} // namespace fieldflow::host::batch
