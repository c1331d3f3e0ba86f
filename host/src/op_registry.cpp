#include <fieldflow/host/op_registry.hpp>

#include <algorithm>

namespace fieldflow::host {
namespace {

template <typename T>
const T* find_named(const std::vector<T>& items, std::string_view name) {
    for (const T& item : items)
        if (item.name == name) return &item;
    return nullptr;
}

template <typename T>
std::vector<std::string> names_of(const std::vector<T>& items) {
    std::vector<std::string> out;
    for (const T& item : items) out.push_back(item.name);
    return out;
}

std::string origin(const OpInfo& op) {
    return op.plugin_file.empty() ? "plugin '" + op.plugin_name + "'" : op.plugin_file;
}

} // namespace

const PortInfo* OpInfo::find_input(std::string_view port) const { return find_named(inputs, port); }
const PortInfo* OpInfo::find_output(std::string_view port) const { return find_named(outputs, port); }
const ParamInfo* OpInfo::find_param(std::string_view param) const { return find_named(params, param); }
std::vector<std::string> OpInfo::input_names() const { return names_of(inputs); }
std::vector<std::string> OpInfo::output_names() const { return names_of(outputs); }
std::vector<std::string> OpInfo::param_names() const { return names_of(params); }

std::string OpRegistry::add(std::vector<OpInfo> ops) {
    for (size_t i = 0; i < ops.size(); ++i) {
        if (auto it = ops_.find(ops[i].name); it != ops_.end())
            return "op '" + ops[i].name + "' is already provided by " + origin(*it->second);
        for (size_t j = 0; j < i; ++j)
            if (ops[j].name == ops[i].name)
                return "op '" + ops[i].name + "' is declared twice";
    }
    for (OpInfo& op : ops) {
        std::string name = op.name;
        ops_.emplace(std::move(name), std::make_unique<OpInfo>(std::move(op)));
    }
    return {};
}

const OpInfo* OpRegistry::find(std::string_view name) const {
    auto it = ops_.find(name);
    return it == ops_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& entry : ops_) out.push_back(entry.first);
    return out;
}

std::vector<const OpInfo*> OpRegistry::by_category() const {
    std::vector<const OpInfo*> out;
    for (const auto& entry : ops_) out.push_back(entry.second.get());
    std::stable_sort(out.begin(), out.end(), [](const OpInfo* a, const OpInfo* b) {
        return a->category < b->category;
    });
    return out;
}

} // namespace fieldflow::host
