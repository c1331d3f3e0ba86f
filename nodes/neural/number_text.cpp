#include "number_text.hpp"

#include <cstdio>

namespace ff::neural {

std::string grouped(uint64_t value) {
    const std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string rate_text(double per_second) {
    if (per_second >= 100) return grouped(uint64_t(per_second + 0.5));
    char buffer[64];
    if (per_second >= 1) std::snprintf(buffer, sizeof buffer, "%.1f", per_second);
    else std::snprintf(buffer, sizeof buffer, "%.3g", per_second);
    return buffer;
}

std::string formatted(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

} // namespace ff::neural
