// The report's rate-distortion plot: PSNR against file size, the codecs as curves over their
// quality range and the model (and the bilinear grid) as points, as inline SVG (no script, no
// fetch: the page stays self-contained and offline).
#pragma once

#include <string>
#include <vector>

namespace ff::neural {

struct RatePoint {
    double bytes = 0;
    double psnr = 0;   // dB
    std::string label; // shown beside a lone point, and as its tooltip
};

struct RateSeries {
    std::string name;   // the legend's text
    std::string colour; // CSS colour
    std::vector<RatePoint> points;
    bool line = true;   // joined by a line (a codec's curve); false: marked points only
};

// The plot: bytes on a logarithmic x axis, PSNR in dB on a linear y axis; empty when no series
// has a point.
std::string rate_plot_svg(const std::vector<RateSeries>& series);

} // namespace ff::neural
