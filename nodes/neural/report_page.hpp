// The comparison report as one self-contained HTML page (images embedded as data: URIs). Pure:
// everything it shows is in ReportPage, so it can be tested without files or a device.
#pragma once

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

struct ReportRow {
    std::string name;
    std::string value;
};

struct ReportPage {
    std::string title;
    std::string subtitle;                   // "751x563 image, 40000 steps on ..."
    std::vector<ReportImage> images;        // shown side by side
    std::vector<ReportSnapshot> snapshots;  // the strip, in step order
    std::optional<PngBytes> training_curve;
    std::vector<ReportRow> quality;         // metrics table
    std::vector<ReportRow> training;        // timings, device, model size
};

std::string render_report_html(const ReportPage& page);

// Text made safe for HTML element content and attribute values.
std::string html_escape(const std::string& text);

} // namespace ff::neural
