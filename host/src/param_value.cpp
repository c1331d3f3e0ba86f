#include <fieldflow/host/names.hpp>
#include <fieldflow/host/param_value.hpp>

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstdio>

namespace fieldflow::host {
namespace {

std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string short_number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// 0: parsed; 1: not an integer; 2: an integer too large for 64 bits.
int parse_int(const std::string& s, int64_t& out) {
    const char* begin = s.data();
    const char* end = s.data() + s.size();
    if (begin != end && *begin == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, out);
    if (ec == std::errc::result_out_of_range && ptr == end) return 2;
    return ec == std::errc() && ptr == end ? 0 : 1;
}

// YAML spellings of non-finite numbers, which from_chars does not know.
bool is_yaml_non_finite(const std::string& s) {
    static const char* const spellings[] = {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF",
                                            "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"};
    for (const char* spelling : spellings)
        if (s == spelling) return true;
    return false;
}

std::optional<std::string> range_error(const ParamInfo& info, double v, const std::string& shown) {
    if (!info.has_range || (v >= info.min && v <= info.max)) return std::nullopt;
    return "= " + shown + " is out of range " + range_text(info);
}

ParamParse parse_int_value(const ParamInfo& info, const std::string& s) {
    int64_t v = 0;
    switch (parse_int(s, v)) {
    case 1: return {std::nullopt, "must be an integer, got '" + s + "'"};
    case 2:
        return {std::nullopt, "= " + s + " is out of range " +
                                  (info.has_range ? range_text(info) : std::string("of a 64-bit integer"))};
    default: break;
    }
    if (auto e = range_error(info, double(v), std::to_string(v))) return {std::nullopt, *e};
    return {ParamValue(v), {}};
}

ParamParse parse_float_value(const ParamInfo& info, const std::string& s) {
    if (is_yaml_non_finite(s)) return {std::nullopt, "must be a finite number, got '" + s + "'"};
    double v = 0;
    const char* begin = s.data();
    const char* end = s.data() + s.size();
    if (begin != end && *begin == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc::result_out_of_range && ptr == end && begin != end) {
        // 1e999 overflows; 1e-400 underflows (strtod says which: a huge or a tiny result).
        if (std::fabs(std::strtod(s.c_str(), nullptr)) < 1.0)
            return {std::nullopt, "= " + s + " underflows: it is too close to 0 for a double (the "
                                              "smallest is about 2.2e-308)" +
                                      (info.has_range ? "; the range is " + range_text(info) : std::string())};
        return {std::nullopt, "must be a finite number, got '" + s + "'"};
    }
    if (ec != std::errc() || ptr != end || begin == end)
        return {std::nullopt, "must be a number, got '" + s + "'"};
    if (!std::isfinite(v)) return {std::nullopt, "must be a finite number, got '" + s + "'"};
    if (auto e = range_error(info, v, short_number_text(v))) return {std::nullopt, *e};
    return {ParamValue(v), {}};
}

ParamParse parse_bool_value(const std::string& s) {
    if (s == "true" || s == "True" || s == "TRUE") return {ParamValue(true), {}};
    if (s == "false" || s == "False" || s == "FALSE") return {ParamValue(false), {}};
    return {std::nullopt, "must be true or false, got '" + s + "'"};
}

ParamParse parse_enum_value(const ParamInfo& info, const std::string& s) {
    for (const std::string& choice : info.choices)
        if (s == choice) return {ParamValue(s), {}};
    return {std::nullopt, "must be one of " + join(info.choices, ", ") + "; got '" + s + "'" +
                              did_you_mean(s, info.choices)};
}

// A scalar given to a list param: "[1, 2]" is parsed as a YAML list (handy with --set), anything
// else is a list of one item.
ParamText as_list(const ParamText& text, bool& ok) {
    ok = true;
    if (text.is_sequence || text.scalar.empty() || text.scalar.front() != '[') {
        if (text.is_sequence) return text;
        ParamText one;
        one.is_sequence = true;
        one.items.push_back(text.scalar);
        return one;
    }
    ParamText parsed;
    ok = param_text_from_yaml(text.scalar, parsed) && parsed.is_sequence;
    return parsed;
}

} // namespace

const char* kind_name(ff_param_kind kind) {
    switch (kind) {
    case FF_PARAM_INT: return "int";
    case FF_PARAM_FLOAT: return "float";
    case FF_PARAM_BOOL: return "bool";
    case FF_PARAM_STRING: return "string";
    case FF_PARAM_ENUM: return "enum";
    case FF_PARAM_INT_LIST: return "int list";
    case FF_PARAM_STRING_LIST: return "string list";
    }
    return "unknown";
}

std::string range_text(const ParamInfo& info) {
    if (info.kind == FF_PARAM_FLOAT)
        return "[" + short_number_text(info.min) + ", " + short_number_text(info.max) + "]";
    auto bound = [](double v) {
        if (v >= 9.2e18) return std::string("max");
        if (v <= -9.2e18) return std::string("min");
        return std::to_string(int64_t(v));
    };
    return "[" + bound(info.min) + ", " + bound(info.max) + "]";
}

bool param_text_from_yaml(const std::string& yaml, ParamText& out) {
    out = ParamText{};
    YAML::Node node;
    try {
        node = YAML::Load(yaml);
    } catch (const YAML::Exception&) {
        return false;
    }
    if (node.IsNull()) {
        out.is_null = node.Tag() != "!"; // an unquoted empty/`~` value
        return true;
    }
    if (node.IsScalar()) {
        out.scalar = node.Scalar();
        return true;
    }
    if (!node.IsSequence()) return false;
    out.is_sequence = true;
    for (const YAML::Node& item : node) {
        if (!item.IsScalar()) return false;
        out.items.push_back(item.Scalar());
    }
    return true;
}

ParamParse parse_param(const ParamInfo& info, const ParamText& text) {
    if (text.is_null) return {std::nullopt, "has no value (leave it out to use the default)"};
    const bool is_list = info.kind == FF_PARAM_INT_LIST || info.kind == FF_PARAM_STRING_LIST;
    if (!is_list && text.is_sequence)
        return {std::nullopt, std::string("must be ") +
                                  (info.kind == FF_PARAM_INT ? "an " : "a ") + kind_name(info.kind) +
                                  ", not a list"};
    switch (info.kind) {
    case FF_PARAM_INT: return parse_int_value(info, text.scalar);
    case FF_PARAM_FLOAT: return parse_float_value(info, text.scalar);
    case FF_PARAM_BOOL: return parse_bool_value(text.scalar);
    case FF_PARAM_STRING: return {ParamValue(text.scalar), {}};
    case FF_PARAM_ENUM: return parse_enum_value(info, text.scalar);
    case FF_PARAM_INT_LIST:
    case FF_PARAM_STRING_LIST: {
        bool ok = true;
        ParamText list = as_list(text, ok);
        if (!ok) return {std::nullopt, "must be a list like [1, 2], got '" + text.scalar + "'"};
        if (info.kind == FF_PARAM_STRING_LIST) return {ParamValue(list.items), {}};
        std::vector<int64_t> values;
        for (size_t i = 0; i < list.items.size(); ++i) {
            ParamParse one = parse_int_value(info, list.items[i]);
            if (!one.value) return {std::nullopt, "item " + std::to_string(i + 1) + " " + one.error,
                                    int(i)};
            values.push_back(std::get<int64_t>(*one.value));
        }
        return {ParamValue(std::move(values)), {}};
    }
    }
    return {std::nullopt, "has an unknown kind"};
}

std::string canonical_text(const ParamValue& value) {
    struct Visitor {
        std::string operator()(int64_t v) const { return std::to_string(v); }
        std::string operator()(double v) const { return number_text(v); }
        std::string operator()(bool v) const { return v ? "true" : "false"; }
        std::string operator()(const std::string& v) const { return v; }
        std::string operator()(const std::vector<int64_t>& v) const {
            std::vector<std::string> items;
            for (int64_t x : v) items.push_back(std::to_string(x));
            return "[" + join(items) + "]";
        }
        std::string operator()(const std::vector<std::string>& v) const {
            return "[" + join(v) + "]";
        }
    };
    return std::visit(Visitor{}, value);
}

} // namespace fieldflow::host
