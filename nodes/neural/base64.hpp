// Base64 (RFC 4648, with padding) for embedding PNGs in the report as data: URIs.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace ff::neural {

std::string base64_encode(std::span<const unsigned char> bytes);

} // namespace ff::neural
