// The OpenCV choices several image ops share, by the names their params use.
#pragma once

#include <string>

namespace ff::nodes {

// Interpolation: "nearest", "linear", "cubic", "area", "lanczos" -> cv::INTER_*.
inline constexpr const char* kInterpolations = "nearest|linear|cubic|lanczos";
int interpolation_flag(const char* param, const std::string& name);

// What lies past the image's edges: a constant (the op's `fill`), the edge pixel repeated, the
// image mirrored with (reflect) or without (reflect101) its edge pixel repeated, or wrapped.
inline constexpr const char* kBorders = "constant|replicate|reflect|reflect101|wrap";
int border_flag(const char* param, const std::string& name);

} // namespace ff::nodes
