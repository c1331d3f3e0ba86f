// The report's 1:1 crops: the regions where learned beats bilinear most and where bilinear beats
// learned most, labelled so, each image's full-resolution pixels side by side, zoomable together (click,
// or Enter, + and - on the focused region: 1x, 2x, 4x, pixels kept sharp). Plain HTML/CSS/JS.
#pragma once

#include "report_page.hpp"

#include <string>
#include <vector>

namespace ff::neural {

// The section's styles and HTML.
std::string crops_section(const std::vector<ReportCrop>& crops);

// The script that zooms the crops: place it after the section (end of the body).
std::string crops_script();

} // namespace ff::neural
