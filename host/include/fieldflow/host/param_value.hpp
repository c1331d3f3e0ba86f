// Param declarations as the host keeps them, typed param values, and the conversion from the
// text written in a graph file to a checked value.
#pragma once

#include <fieldflow/plugin.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fieldflow::host {

// INT, FLOAT, BOOL, STRING (and ENUM), INT_LIST, STRING_LIST
using ParamValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                                std::vector<std::string>>;

struct ParamInfo {
    std::string name;
    ff_param_kind kind = FF_PARAM_STRING;
    std::optional<ParamValue> default_value; // nullopt: required
    std::string default_text;                // as declared, for `fieldflow nodes`
    bool has_range = false;
    double min = 0;
    double max = 0;
    std::vector<std::string> choices; // ENUM
    std::string doc;
    uint32_t flags = FF_PARAM_IN_KEY; // ff_param_flags (ABI 1.2)
    std::vector<struct ParamCondition> applies_when; // ABI 1.3: all must hold; empty = always
};

// One condition of ff_param_decl.applies_when: param `param` (an enum or a bool declared before
// the one it governs) holds one of `values` ("true"/"false" for a bool).
struct ParamCondition {
    std::string param;
    std::vector<std::string> values;
};

// A param as written: one scalar, a list of scalars, or nothing (`~`).
struct ParamText {
    bool is_null = false;
    bool is_sequence = false;
    std::string scalar;
    std::vector<std::string> items;
};

struct ParamParse {
    std::optional<ParamValue> value;
    std::string error; // completes "param 'p' ...": "must be an integer, got 'x'"
    int item = -1;     // for list params: the 0-based item the error is about
};

// Converts and checks (kind, range, finiteness, enum choices) one param value.
ParamParse parse_param(const ParamInfo& info, const ParamText& text);

// Reads YAML text ("3", "[1, 2]", "auto") into a ParamText; false if it is not a scalar or a
// list of scalars.
bool param_text_from_yaml(const std::string& yaml, ParamText& out);

const char* kind_name(ff_param_kind kind); // "int", "float", ...

// A stable text form of a value: the cache key hashes it, `fieldflow nodes` shows it.
std::string canonical_text(const ParamValue& value);

// "[1, 4096]" for an int or float range.
std::string range_text(const ParamInfo& info);

} // namespace fieldflow::host
