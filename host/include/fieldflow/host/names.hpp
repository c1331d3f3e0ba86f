// Name rules and "did you mean" suggestions shared by the loader, validation and the CLI.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fieldflow::host {

// Node and variable names: [A-Za-z_][A-Za-z0-9_-]*
bool is_valid_name(std::string_view name);

// Levenshtein distance, case-insensitive (a wrong case counts as no edit).
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `wanted`, if it is close enough to be a plausible typo; else "".
std::string closest_name(std::string_view wanted, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" when nothing is close.
std::string did_you_mean(std::string_view wanted, const std::vector<std::string>& candidates);

// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

// The non-empty parts of `s` between the separators: "a|b||c" -> a, b, c.
std::vector<std::string> split(const std::string& s, char separator);

} // namespace fieldflow::host
