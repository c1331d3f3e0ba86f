// The engine's measurement switches read from the environment: on/off ones (FIELDFLOW_TRAIN_PREFETCH,
// FIELDFLOW_READ_BESIDE_CLAIM, ...), counts (FIELDFLOW_TRAIN_GROUPS, FIELDFLOW_VISIT_PARTS) and
// named choices (FIELDFLOW_KERNEL_PATH, FIELDFLOW_SAMPLES, ...).
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>

namespace ff::engine::detail {

// Whether the variable is set to something (an empty value says nothing, as for the readers below).
inline bool env_given(const char* name) {
    const char* value = std::getenv(name);
    return value && *value;
}

// Unset or empty: no say (nullopt); "0" or "1": off or on; anything else is an error naming the
// variable and what it takes, so a measurement never runs another configuration than asked.
inline std::optional<bool> env_switch(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    const std::string v = value;
    if (v != "0" && v != "1") throw EngineError(std::string(name) + "='" + v + "' must be 0 or 1");
    return v == "1";
}

// Unset or empty: no say (nullopt); a whole number in [lo, hi]: that number; anything else is an
// error naming the variable and the range it takes.
inline std::optional<uint32_t> env_count(const char* name, uint32_t lo, uint32_t hi) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    char* end = nullptr;
    const unsigned long v = std::strtoul(value, &end, 10);
    if (*end != '\0' || v < lo || v > hi)
        throw EngineError(std::string(name) + "='" + value + "' must be " + std::to_string(lo) + ".." +
                          std::to_string(hi));
    return uint32_t(v);
}

// Unset or empty: no say (nullopt); one of `choices`: that choice; anything else is an error naming
// the variable and the choices it takes ("must be a, b or c").
inline std::optional<std::string> env_choice(const char* name, std::initializer_list<const char*> choices) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    std::string listed;
    size_t i = 0;
    for (const char* choice : choices) {
        if (std::string(choice) == value) return std::string(value);
        listed.append(i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ").append(choice);
        ++i;
    }
    throw EngineError(std::string(name) + "='" + value + "' must be " + listed);
}

} // namespace ff::engine::detail
