// The comparison report as one self-contained HTML page (images embedded as data: URIs). Pure:
// everything it shows is in ReportPage, so it can be tested without files or a device.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

using PngBytes = std::vector<unsigned char>;

struct ReportImage {
    std::string label;              // "Ground truth", "Bilinear", "Learned"
    PngBytes png;
    std::optional<double> psnr;     // against the ground truth, dB
    std::optional<double> ssim;
};

struct ReportSnapshot {
    uint32_t step = 0;
    std::optional<PngBytes> prediction;   // shown in the strip (a thumbnail of a large image)
    std::optional<PngBytes> feature;
    std::string prediction_href, feature_href; // links to the full-size files; empty: none
};

// One region shown at 1:1: the three images' full-resolution pixels there.
struct ReportCrop {
    int x = 0, y = 0, width = 0, height = 0; // in the full image
    PngBytes truth, bilinear, learned;
    double bilinear_psnr = 0, learned_psnr = 0; // in this region, dB
};

// |bilinear - truth| and |learned - truth| on one colour scale.
struct ReportErrorMaps {
    PngBytes bilinear, learned;
    double scale = 0;                                  // error at the top of the scale, [0, 1]
    std::vector<std::array<unsigned char, 3>> colours; // the scale from 0 to `scale`, RGB
    double bilinear_mean = 0, learned_mean = 0;        // mean absolute error, [0, 1]
};

struct ReportRow {
    std::string name;
    std::string value;
};

struct ReportPage {
    std::string title;
    std::string subtitle;                   // "751x563 image, 40000 steps on ..."
    std::vector<ReportImage> images;        // shown side by side and in the A/B view
    std::string view_note;                  // "shown at 1024x768, scaled down from ..."; empty: 1:1
    std::vector<ReportCrop> crops;          // where learned and bilinear differ most
    std::optional<ReportErrorMaps> error_maps;
    std::vector<ReportSnapshot> snapshots;  // the strip, in step order
    std::optional<PngBytes> training_curve;
    std::vector<ReportRow> quality;         // metrics table
    std::vector<ReportRow> training;        // timings, device, model size
};

std::string render_report_html(const ReportPage& page);

// An <img> with the PNG embedded as a data: URI; `attributes` (" name=\"value\"...") go into the
// tag as given.
std::string embedded_img(const PngBytes& png, const std::string& alt, const std::string& cls = {},
                         const std::string& attributes = {});

// Text made safe for HTML element content and attribute values.
std::string html_escape(const std::string& text);

} // namespace ff::neural
