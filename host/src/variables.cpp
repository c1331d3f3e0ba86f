#include <fieldflow/host/names.hpp>
#include <fieldflow/host/variables.hpp>

#include <filesystem>

namespace fieldflow::host {
namespace {

// Whether `value`, as a folder, is the root folder: empty (so "${v}/x" is "/x"), or naming "/"
// once made absolute, with `.`, `..` and symbolic links resolved as far as they exist.
bool is_root_folder(const std::string& value) {
    if (value.empty()) return true;
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(value, ec);
    if (ec) return false;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(absolute, ec);
    return (ec ? absolute.lexically_normal() : resolved) == absolute.root_path();
}

} // namespace
namespace {

// The first "${name}" in a value (a "$${" escape is no reference), or nullopt.
std::optional<std::string> first_reference(const std::string& text) {
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "$${") == 0) {
            i += 2;
            continue;
        }
        if (text.compare(i, 2, "${") != 0) continue;
        const size_t close = text.find('}', i + 2);
        return close == std::string::npos ? text.substr(i + 2) : text.substr(i + 2, close - i - 2);
    }
    return std::nullopt;
}

// A variable's value is used as it is, never expanded: "${x}" in it would reach a path literally
// (a folder named "${a}"), so it is an error, said plainly for the usual case of `a: ${a}`.
void check_no_reference(const std::string& name, const std::optional<std::string>& value,
                        SourcePos pos, const std::string& where, Diagnostics& diags) {
    if (!value) return;
    const auto ref = first_reference(*value);
    if (!ref) return;
    diags.error(pos, where + "variable '" + name + "' = '" + *value + "' " +
                         (*ref == name ? "refers to itself" : "refers to variable '" + *ref + "'") +
                         ": variable values are not expanded; give the value itself (write '$${' "
                         "for a literal '${')");
}

} // namespace

std::optional<std::pair<std::string, std::string>> parse_set_argument(const std::string& arg) {
    size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    std::string name = arg.substr(0, eq);
    if (!is_valid_name(name)) return std::nullopt;
    return std::make_pair(name, arg.substr(eq + 1));
}

Variables Variables::resolve(const GraphAst& graph, const VarOverrides& sets, Diagnostics& diags) {
    Variables vars;
    std::vector<std::string> declared;
    for (const VarAst& var : graph.vars) {
        vars.values_[var.name] = var.default_value;
        declared.push_back(var.name);
    }
    // A file that is not YAML declares nothing; saying so about every --set would only bury its
    // one real error.
    if (!graph.yaml_ok) return vars;
    for (const VarAst& var : graph.vars) check_no_reference(var.name, var.default_value, var.name_pos, "", diags);
    for (const auto& [name, value] : sets) {
        auto it = vars.values_.find(name);
        if (it == vars.values_.end()) {
            diags.error({}, "--set " + name + ": the graph declares no variable '" + name + "'" +
                                did_you_mean(name, declared) +
                                (declared.empty() ? "; it has no vars"
                                                  : "; its vars are " + join(declared)));
            continue;
        }
        it->second = value;
        vars.set_by_user_.insert(name);
        check_no_reference(name, value, {}, "--set " + name + ": ", diags);
    }
    // "$${" in a value is the escape the messages advise for a literal "${": the value holds "${".
    for (auto& [name, value] : vars.values_)
        if (value)
            for (size_t at = value->find("$${"); at != std::string::npos; at = value->find("$${", at + 2))
                value->erase(at, 1);
    return vars;
}

std::optional<std::optional<std::string>> Variables::value(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

bool Variables::only_graph_values(const ScalarAst& scalar) const {
    bool refers = false;
    for (std::string rest = scalar.text; auto ref = first_reference(rest);) {
        if (set_by_user_.count(*ref)) return false;
        refers = true;
        const size_t at = rest.find("${" + *ref);
        rest = rest.substr(at + 2 + ref->size());
    }
    return refers;
}

std::optional<std::string> Variables::expand(const ScalarAst& scalar, const std::string& context,
                                             Diagnostics& diags) const {
    const std::string& text = scalar.text;
    std::string out;
    bool ok = true;
    for (size_t i = 0; i < text.size();) {
        if (text.compare(i, 3, "$${") == 0) { // escape: a literal "${"
            out += "${";
            i += 3;
            continue;
        }
        if (text.compare(i, 2, "${") != 0) {
            out += text[i++];
            continue;
        }
        size_t close = text.find('}', i + 2);
        if (close == std::string::npos) {
            diags.error(scalar.pos, context + ": unterminated '${' (write '$${' for a literal '${')");
            return std::nullopt;
        }
        std::string name = text.substr(i + 2, close - i - 2);
        auto it = values_.find(name);
        if (it == values_.end()) {
            std::vector<std::string> known;
            for (const auto& entry : values_) known.push_back(entry.first);
            diags.error(scalar.pos, context + ": unknown variable '" + name + "'" +
                                        did_you_mean(name, known) +
                                        "; declare it under 'vars'");
            ok = false;
        } else if (!it->second) {
            diags.error(scalar.pos, context + ": variable '" + name +
                                        "' has no value; give one with --set " + name + "=...");
            ok = false;
        } else {
            out += *it->second;
        }
        i = close + 1;
    }
    if (!ok) return std::nullopt;
    // "${output}/x" with output empty is "/x": a path at the root folder that nobody wrote. So is
    // one whose value is the root folder however it is spelled ("/", "/.", "//", "/tmp/..", a
    // link to "/"). A graph that means the root writes it out ("/x").
    if (text.rfind("${", 0) == 0 && text.find('}') != std::string::npos) {
        const std::string name = text.substr(2, text.find('}') - 2);
        const auto it = values_.find(name);
        const bool whole = text.size() == name.size() + 3; // "${output}": the folder itself
        if (it != values_.end() && it->second && is_root_folder(*it->second) &&
            (whole ? !it->second->empty() : text[name.size() + 3] == '/')) {
            const std::string& value = *it->second;
            diags.error(scalar.pos, context + ": variable '" + name + "' is " +
                                        (value.empty() ? std::string("empty")
                                                       : value == "/" ? std::string("'/'")
                                                                      : "'" + value + "', the root folder") +
                                        ", so '" + text + "' resolves to '" + out + "'" +
                                        (value.empty() || value == "/" ? " in the root folder" : "") +
                                        "; give it a folder (--set " + name + "=DIR)");
            return std::nullopt;
        }
    }
    return out;
}

} // namespace fieldflow::host
