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

// One picture of a crop: an image's full-resolution pixels in the region.
struct ReportCropPanel {
    std::string label;           // "Ground truth", "Bilinear", "Learned", "JPEG", ...
    PngBytes png;
    std::optional<double> psnr;  // in this region, dB; none for the ground truth
};

// One region shown at 1:1: where learned beats bilinear most, or where bilinear beats learned most.
struct ReportCrop {
    int x = 0, y = 0, width = 0, height = 0; // in the full image
    bool learned_wins = true;
    double bilinear_psnr = 0, learned_psnr = 0; // in this region, dB
    std::vector<ReportCropPanel> panels;        // the ground truth first
};

// |bilinear - truth| and |learned - truth| on one colour scale.
struct ReportErrorMaps {
    PngBytes bilinear, learned;
    double scale = 0;                                  // error at the top of the scale, [0, 1]
    std::vector<std::array<unsigned char, 3>> colours; // the scale from 0 to `scale`, RGB
    double bilinear_mean = 0, learned_mean = 0;        // mean absolute error, [0, 1]
    // Where each wins: green where learned is closer to the truth, magenta where bilinear is
    // (win_colour), at the size of the error maps; and the share of 8x8 blocks each is closer in.
    PngBytes win_map;
    double win_scale = 0;                              // |difference| at full colour, [0, 1]
    double learned_better_blocks = 0, bilinear_better_blocks = 0; // fractions of the blocks
};

// A line of the page's explanatory notes: a bold lead-in and its text.
struct ReportNote {
    std::string lead;
    std::string text;
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
    std::vector<ReportNote> run_notes;      // what ran: the budget trained against the one asked
    std::vector<ReportNote> baseline_notes; // what each baseline is and why it is a fair match
    std::vector<ReportCrop> crops;          // where learned wins most, then where bilinear does
    std::optional<ReportErrorMaps> error_maps;
    std::vector<ReportSnapshot> snapshots;  // the strip, in step order
    std::optional<PngBytes> training_curve;
    std::string rate_plot_svg;              // PSNR against bytes (report_rate_plot.hpp); empty: none
    std::vector<ReportRow> quality;         // metrics table
    std::vector<ReportNote> metric_notes;   // what each metric measures and how it is computed
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
