// The engine's on/off measurement switches (FIELDFLOW_TRAIN_PREFETCH, ...) read from the environment.
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <cstdlib>
#include <optional>
#include <string>

namespace ff::engine::detail {

// Unset or empty: no say (nullopt); "0" or "1": off or on; anything else is an error naming the
// variable and what it takes, so a measurement never runs another configuration than asked.
inline std::optional<bool> env_switch(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    const std::string v = value;
    if (v != "0" && v != "1") throw EngineError(std::string(name) + "='" + v + "' must be 0 or 1");
    return v == "1";
}

} // namespace ff::engine::detail
