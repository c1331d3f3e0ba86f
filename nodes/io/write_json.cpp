// WriteJson: json text -> a file, atomically; passes the json on so graphs can chain.
#include "common/atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

FF_NODE(write_json) =
    ff::op("WriteJson", "io")
        .doc("Writes JSON (e.g. Metrics' output) to a file, pretty-printed with a final newline. "
             "Parent folders are created; the file is written under a temporary name and renamed, "
             "so it is never seen half-written. The JSON is passed through unchanged.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .input("json", ff::kJson, "JSON text to save")
        .output("json", ff::kJson, "the same JSON, for chaining")
        .param_string("path", std::nullopt, "file to write")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_int("indent", 2, -1, 16, "spaces per indent level; -1 writes everything on one line")
        .validate([](ff::Node& node) {
            if (node.string("path").empty()) throw ff::ParamError("path", "path is empty");
        })
        .execute([](ff::Node& node) {
            const std::string text = node.text("json");
            nlohmann::json value;
            try {
                value = nlohmann::json::parse(text);
            } catch (const nlohmann::json::parse_error& e) {
                throw ff::Error(std::string("input 'json' is not valid JSON: ") + e.what());
            }
            ff::nodes::atomic_write_file(node.string("path"),
                                         value.dump(int(node.integer("indent"))) + "\n");
            node.output_text("json", text);
        });
