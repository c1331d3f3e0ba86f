// Numbers as the report and the comparison table write them.
#pragma once

#include <cstdint>
#include <string>

namespace ff::neural {

// "40,000": whole numbers with thousands separators.
std::string grouped(uint64_t value);

// A rate with three significant figures at least, never rounded to 0: "1,234", "12.3", "0.0456".
std::string rate_text(double per_second);

// `value` through printf's `format` ("%.2f"), for log lines.
std::string formatted(const char* format, double value);

} // namespace ff::neural
