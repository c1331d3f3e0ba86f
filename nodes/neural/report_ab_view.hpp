// The report's A/B view: two of the page's images stacked over the whole picture, a split the
// reader moves (slider, arrow keys, click or drag), a flip that swaps the sides (button or F) and
// zoom (fit, 1x to 8x; + and - keys) with scrolling. Plain HTML/CSS/JS, nothing fetched: the view
// takes its pictures from the page's own <img data-view="N"> elements, so no image is embedded
// twice.
#pragma once

#include <string>
#include <vector>

namespace ff::neural {

// The section's styles and HTML. `labels[i]` names the image with data-view="i"; `a`/`b` are the
// images shown first on the left/right.
std::string ab_view_section(const std::vector<std::string>& labels, size_t a, size_t b);

// The script that runs the view: place it after every <img data-view> (end of the body).
std::string ab_view_script();

} // namespace ff::neural
