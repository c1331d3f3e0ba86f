// Devices: the Vulkan devices this machine offers, as the engine sees them (list_devices), as
// JSON. An op of the neural plugin because the host does not link the engine: `fieldflow batch
// --devices all` runs it in-process to learn which GPUs there are, and a graph can record them.
#include <fieldflow/engine/engine.hpp>
#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <string>

FF_NODE(devices) =
    ff::op("Devices", "neural")
        .doc("The compute (Vulkan) devices of this machine as the engine sees them, in the order "
             "--device N and a node's 'device' param number them: {\"devices\": [{\"index\", "
             "\"name\", \"type\" (discrete, integrated, virtual, cpu, other), \"usable\", "
             "\"missing\" (the required features a device lacks), \"memory_bytes\", \"driver\"}]}. "
             "An empty list when there is no Vulkan driver. `fieldflow batch --devices all` reads it.")
        // Always runs: the devices are the machine's, not a function of the graph.
        .flags(FF_OP_READS_OUTSIDE)
        .output("json", ff::kJson, "{\"devices\": [...]}")
        .execute([](ff::Node& node) {
            nlohmann::json list = nlohmann::json::array();
            std::string names;
            for (const ff::engine::DeviceInfo& d : ff::engine::list_devices()) {
                list.push_back({{"index", d.index},
                                {"name", d.name},
                                {"type", d.type},
                                {"usable", d.missing.empty()},
                                {"missing", d.missing},
                                {"memory_bytes", d.memory_bytes},
                                {"driver", d.driver}});
                names += (names.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name + " (" +
                         d.type + (d.missing.empty() ? "" : ", lacks " + d.missing) + ")";
            }
            node.log(std::to_string(list.size()) + " Vulkan device" + (list.size() == 1 ? "" : "s") +
                     (names.empty() ? "" : ": " + names));
            node.output_text("json", nlohmann::json{{"devices", list}}.dump());
        });
