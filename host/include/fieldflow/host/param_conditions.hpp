// When a param has an effect (ff_param_decl.applies_when, ABI 1.3): reading the declaration,
// deciding it for a node's values, and the text `fieldflow nodes` and the warnings show.
#pragma once

#include <fieldflow/host/param_value.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fieldflow::host {

// Reads `text` ("model=grid|siren, encoding=hash") for the param `name` into `out`, checking each
// condition against the params declared before it (`earlier`): an enum or bool, values among its
// choices, each param at most once. Returns "" or what is wrong.
std::string parse_applies_when(const std::string& name, const std::string& text,
                               const std::vector<ParamInfo>& earlier, std::vector<ParamCondition>& out);

// The value of a param by name (nullptr: not set, so not applying).
using ParamLookup = std::function<const ParamValue*(std::string_view name)>;

// Whether every condition of `info` holds for the values `value_of` gives.
bool param_applies(const ParamInfo& info, const ParamLookup& value_of);

// "model=grid, encoding=hash"; "" for a param that always applies.
std::string applies_when_text(const std::vector<ParamCondition>& conditions);

// The first condition of `info` that fails, as "model is 'siren'" (empty if all hold).
std::string failed_condition(const ParamInfo& info, const ParamLookup& value_of);

} // namespace fieldflow::host
