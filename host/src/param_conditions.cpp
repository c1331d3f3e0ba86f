#include <fieldflow/host/param_conditions.hpp>

#include <fieldflow/host/names.hpp>

#include <algorithm>

namespace fieldflow::host {

namespace {

std::string trimmed(std::string_view text) {
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    const size_t last = text.find_last_not_of(" \t");
    return std::string(text.substr(first, last - first + 1));
}

// An enum's choice or a bool's "true"/"false": what a condition compares against.
std::string condition_value(const ParamValue& value) {
    if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const std::string* s = std::get_if<std::string>(&value)) return *s;
    return canonical_text(value);
}

const ParamCondition* first_failing(const ParamInfo& info, const ParamLookup& value_of,
                                    const ParamValue** found) {
    for (const ParamCondition& c : info.applies_when) {
        const ParamValue* value = value_of(c.param);
        *found = value;
        if (!value || std::find(c.values.begin(), c.values.end(), condition_value(*value)) == c.values.end())
            return &c;
    }
    return nullptr;
}

} // namespace

std::string parse_applies_when(const std::string& name, const std::string& text,
                               const std::vector<ParamInfo>& earlier, std::vector<ParamCondition>& out) {
    out.clear();
    const std::string what = "param '" + name + "': applies_when '" + text + "'";
    if (trimmed(text).empty()) return {};
    for (const std::string& part : split(text, ',')) {
        const std::string condition = trimmed(part);
        const size_t eq = condition.find('=');
        if (eq == std::string::npos)
            return what + ": '" + condition + "' is not PARAM=VALUE[|VALUE...]";
        ParamCondition c;
        c.param = trimmed(std::string_view(condition).substr(0, eq));
        const auto governing = std::find_if(earlier.begin(), earlier.end(),
                                            [&](const ParamInfo& p) { return p.name == c.param; });
        if (governing == earlier.end())
            return what + ": '" + c.param + "' is not a param declared before '" + name + "'";
        std::vector<std::string> allowed = governing->choices;
        if (governing->kind == FF_PARAM_BOOL) allowed = {"true", "false"};
        else if (governing->kind != FF_PARAM_ENUM)
            return what + ": '" + c.param + "' is a " + kind_name(governing->kind) + ", not an enum or bool";
        for (const std::string& v : split(std::string(condition.substr(eq + 1)), '|')) {
            const std::string value = trimmed(v);
            if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
                return what + ": '" + value + "' is not one of " + join(allowed, "|");
            c.values.push_back(value);
        }
        if (c.values.empty()) return what + ": no value for '" + c.param + "'";
        for (const ParamCondition& seen : out)
            if (seen.param == c.param) return what + ": '" + c.param + "' appears twice";
        out.push_back(std::move(c));
    }
    return {};
}

bool param_applies(const ParamInfo& info, const ParamLookup& value_of) {
    const ParamValue* found = nullptr;
    return first_failing(info, value_of, &found) == nullptr;
}

std::string applies_when_text(const std::vector<ParamCondition>& conditions) {
    std::vector<std::string> parts;
    for (const ParamCondition& c : conditions) parts.push_back(c.param + "=" + join(c.values, "|"));
    return join(parts, ", ");
}

std::string failed_condition(const ParamInfo& info, const ParamLookup& value_of) {
    const ParamValue* found = nullptr;
    const ParamCondition* c = first_failing(info, value_of, &found);
    if (!c) return {};
    return found ? c->param + " is '" + condition_value(*found) + "'" : c->param + " is not set";
}

} // namespace fieldflow::host
