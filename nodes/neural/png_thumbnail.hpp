// Smaller copies of PNG images for pages that show many of them small (the report's snapshot strip).
#pragma once

#include <vector>

namespace ff::neural {

// `png` scaled down (area averaging, aspect kept) to at most `max_width` pixels wide and
// re-encoded; returned unchanged when it is already that narrow or cannot be decoded.
std::vector<unsigned char> png_thumbnail(const std::vector<unsigned char>& png, int max_width);

} // namespace ff::neural
