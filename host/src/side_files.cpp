#include "side_files.hpp"

#include <fieldflow/host/regular_file.hpp>

#include <filesystem>
#include <fstream>
#include <system_error>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

// "side file:<param>:<path relative to the param's value, empty for the value itself>". The
// colon and space keep it apart from port names ([A-Za-z_][A-Za-z0-9_-]*).
constexpr const char* kPrefix = "side file:";

std::string entry_name(const std::string& param, const std::string& relative) {
    return kPrefix + param + ":" + relative;
}

const std::string* string_param(const PlannedNode& node, const std::string& name) {
    const ResolvedParam* p = node.param(name);
    return p ? std::get_if<std::string>(&p->value) : nullptr;
}

} // namespace

bool is_side_file_entry(const std::string& name) { return name.rfind(kPrefix, 0) == 0; }

std::string collect_side_files(const PlannedNode& node,
                               const std::map<std::string, std::set<std::string>>& reported,
                               OutputMap& outputs) {
    for (const auto& [param, paths] : reported) {
        const std::string* base = string_param(node, param);
        if (!base || base->empty()) return "side files reported under the empty param '" + param + "'";
        for (const std::string& path : paths) {
            // Inside the param's folder, or beside the param's file (a log's curve picture).
            const fs::path file = fs::path(path).lexically_normal(), root = fs::path(*base).lexically_normal();
            std::string relative;
            if (file != root) {
                relative = file.lexically_relative(root).generic_string();
                const std::string from_parent = file.lexically_relative(root.parent_path()).generic_string();
                if (relative.empty() || from_parent.empty() || from_parent.rfind("..", 0) == 0)
                    return "side file '" + path + "' is not under param '" + param + "' (" + *base + ")";
            }
            std::string data, error;
            const ReadStatus read = read_regular_file(path, data, error);
            if (read != ReadStatus::ok)
                return "cannot read the side file '" + path + "' to keep it with the result" +
                       (read == ReadStatus::missing ? std::string(": it is gone") : ": it " + error);
            auto value = std::make_shared<Value>();
            value->type = "side-file";
            const auto* first = reinterpret_cast<const std::byte*>(data.data());
            value->bytes.assign(first, first + data.size());
            outputs[entry_name(param, relative)] = std::move(value);
        }
    }
    return {};
}

std::string materialise_side_files(const PlannedNode& node, const OutputMap& outputs) {
    for (const auto& [name, value] : outputs) {
        if (!is_side_file_entry(name)) continue;
        const std::string rest = name.substr(std::string(kPrefix).size());
        const size_t colon = rest.find(':');
        if (colon == std::string::npos) return "malformed side file entry '" + name + "'";
        const std::string param = rest.substr(0, colon), relative = rest.substr(colon + 1);
        const std::string* base = string_param(node, param);
        if (!base || base->empty()) continue; // the key keeps set and unset apart; defensive only
        const fs::path target =
            relative.empty() ? fs::path(*base) : (fs::path(*base) / relative).lexically_normal();
        std::error_code ec;
        if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
        if (ec) return "cannot create folder '" + target.parent_path().string() + "': " + ec.message();
        fs::path temporary = target;
        temporary += ".tmp-side";
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char*>(value->bytes.data()), std::streamsize(value->bytes.size()));
            if (!out.flush()) {
                fs::remove(temporary, ec);
                return "cannot write '" + target.string() + "'";
            }
        }
        fs::rename(temporary, target, ec);
        if (ec) {
            fs::remove(temporary, ec);
            return "cannot write '" + target.string() + "': " + ec.message();
        }
    }
    return {};
}

} // namespace fieldflow::host
