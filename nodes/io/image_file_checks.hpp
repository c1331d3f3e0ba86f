// Checks on an image file before it is decoded, so that the common ways a file is unusable get a
// message naming the actual problem rather than a generic "cannot decode".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ff::nodes {

// Throws ff::Error if `path` is missing, not a regular file, unreadable, empty (0 bytes), a PNG
// whose header declares a width or height of 0, or a JPEG whose last scan never ends (a truncated
// download or copy: OpenCV would otherwise return the top part of the picture padded with gray,
// with only a warning on stderr).
void check_readable_image_file(const std::string& path);

// True if the JPEG bytes end their last scan with an end-of-image marker. Scanning backwards, the
// first marker of interest must be EOI (FF D9) rather than SOS (FF DA): compressed scan data
// never contains either byte pair (an FF in it is always followed by 00 or a restart marker), so
// reaching an SOS first means the data after it was cut short. Bytes after EOI (metadata or a
// second picture some cameras append) are allowed.
bool jpeg_has_end_marker(const std::string& path);

struct HeaderSize {
    uint32_t width = 0, height = 0;
};

// The image size a PNG (IHDR) or JPEG (its first SOFn frame header) declares, read from the
// header only, so a size limit can refuse a huge picture before it is decoded; nullopt for other
// formats or a header that cannot be read (the decoder then has the last word).
std::optional<HeaderSize> image_header_size(const std::string& path);

// For a PNG: whether it can decode with an alpha channel (a colour type with alpha, or a tRNS
// chunk before its image data), from the chunk headers alone. nullopt for another format or a
// file whose chunks cannot be followed (the decoder then has the last word).
std::optional<bool> png_may_hold_alpha(const std::string& path);

} // namespace ff::nodes
