// Every op the loaded plugins provide, copied out of their C declarations into host types.
#pragma once

#include <fieldflow/host/param_value.hpp>
#include <fieldflow/plugin.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fieldflow::host {

struct PortInfo {
    std::string name;
    std::string type;
    std::string doc;
    bool optional = false;
};

struct OpInfo {
    std::string name;
    std::string category;
    std::string doc;
    uint32_t flags = 0;
    uint32_t version = 0;
    std::vector<PortInfo> inputs;
    std::vector<PortInfo> outputs;
    std::vector<ParamInfo> params;

    ff_execute_fn execute = nullptr;
    ff_validate_fn validate = nullptr;
    ff_prepare_fn prepare = nullptr; // ABI 1.4
    ff_release_fn release = nullptr; // ABI 1.4
    void* user = nullptr;

    std::string plugin_name;
    std::string plugin_version;
    std::string plugin_file; // "" for ops registered in-process

    const PortInfo* find_input(std::string_view port) const;
    const PortInfo* find_output(std::string_view port) const;
    const ParamInfo* find_param(std::string_view param) const;
    std::vector<std::string> input_names() const;
    std::vector<std::string> output_names() const;
    std::vector<std::string> param_names() const;
};

class OpRegistry {
public:
    // Adds a plugin's ops, all or none: returns "" or an error (a duplicate op names both files).
    std::string add(std::vector<OpInfo> ops);

    const OpInfo* find(std::string_view name) const;
    std::vector<std::string> names() const;            // sorted
    std::vector<const OpInfo*> by_category() const;    // sorted by category, then name
    size_t size() const { return ops_.size(); }

private:
    std::map<std::string, std::unique_ptr<OpInfo>, std::less<>> ops_;
};

} // namespace fieldflow::host
