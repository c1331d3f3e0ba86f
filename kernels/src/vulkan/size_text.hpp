// Byte counts in messages and logs: "3.00 MiB", "1.25 GiB", "512 bytes".
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace ff::engine::detail {

inline std::string size_text(uint64_t bytes) {
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) return std::to_string(bytes) + " bytes";
    double value = double(bytes) / 1024;
    int unit = 0;
    while (value >= 1024 && unit < 3) value /= 1024, ++unit;
    char text[32];
    std::snprintf(text, sizeof text, "%.2f %s", value, units[unit]);
    return text;
}

} // namespace ff::engine::detail
