#include "report_page.hpp"

#include "base64.hpp"
#include "report_ab_view.hpp"
#include "report_crops.hpp"

#include <cstdio>

namespace ff::neural {

namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; background: #fafafa; }
h1 { margin-bottom: 0.2em; }
.subtitle { color: #666; margin-top: 0; }
.side-by-side { display: flex; gap: 1em; flex-wrap: wrap; }
.side-by-side figure { margin: 0; flex: 1 1 0; min-width: 200px; }
.side-by-side img { width: 100%; height: auto; display: block; }
figcaption { text-align: center; padding: 0.3em; }
figcaption .numbers { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em 0; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: middle; }
th { background: #f0f0f0; }
table.strip td { padding: 2px; }
table.strip img { width: 100%; height: auto; display: block; }
table.strip img.feature { image-rendering: pixelated; }
.curve img { max-width: 100%; }
.note { color: #555; font-size: 0.9em; }
.legend { max-width: 40em; margin: 0.5em 0 1.5em 0; }
.legend-bar { height: 14px; border: 1px solid #999; }
.legend-ticks { display: flex; justify-content: space-between; font-size: 0.85em; color: #444; }
.explain { max-width: 60em; margin: 0.4em 0; }
.rate-plot svg { max-width: 100%; height: auto; background: #fff; border: 1px solid #ddd; }
)";

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string data_uri(const PngBytes& png) {
    return "data:image/png;base64," + base64_encode(png);
}

std::string view_attribute(size_t index) { return " data-view=\"" + std::to_string(index) + "\""; }

std::string error_maps_html(const ReportErrorMaps& maps, size_t first_view) {
    const double levels = maps.scale * 255.0;
    std::string html = "<h2>Error maps</h2>\n<p class=\"note\">|image - ground truth| per pixel, "
                       "the mean over R, G, B, on one colour scale for both: black is no error, "
                       "pale yellow " + fixed(levels, 1) + " 8-bit levels or more (99.5% of the "
                       "pixels of both maps lie below the top of the scale).</p>\n"
                       "<div class=\"side-by-side\">\n";
    auto figure = [&](const PngBytes& png, const std::string& label, double mean, size_t view) {
        html += "<figure>" + embedded_img(png, "error map: " + label, "", view_attribute(view)) +
                "<figcaption><b>|" + html_escape(label) + " - ground truth|</b><br><span "
                "class=\"numbers\">mean " + fixed(mean * 255.0, 2) + " levels</span></figcaption>"
                "</figure>\n";
    };
    figure(maps.bilinear, "Bilinear", maps.bilinear_mean, first_view);
    figure(maps.learned, "Learned", maps.learned_mean, first_view + 1);
    if (!maps.win_map.empty()) {
        html += "<figure>" + embedded_img(maps.win_map, "where each wins", "", view_attribute(first_view + 2)) +
                "<figcaption><b>Where each wins</b><br><span class=\"numbers\">learned closer in " +
                fixed(100 * maps.learned_better_blocks, 0) + "% of 8x8 blocks, bilinear in " +
                fixed(100 * maps.bilinear_better_blocks, 0) + "%</span></figcaption></figure>\n";
    }
    html += "</div>\n<div class=\"legend\" role=\"img\" aria-label=\"colour scale from 0 to " +
            fixed(levels, 1) + " 8-bit levels\"><div class=\"legend-bar\" style=\"background: "
            "linear-gradient(to right";
    for (const auto& c : maps.colours)
        html += ", rgb(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + ")";
    html += ")\"></div><div class=\"legend-ticks\"><span>0</span><span>" + fixed(levels / 2, 1) +
            "</span><span>&ge; " + fixed(levels, 1) + " levels</span></div></div>\n";
    if (!maps.win_map.empty()) {
        const std::string top = fixed(maps.win_scale * 255.0, 1);
        html += "<div class=\"legend\" role=\"img\" aria-label=\"where each wins: magenta bilinear "
                "closer, white alike, green learned closer\"><div class=\"legend-bar\" style=\"background: "
                "linear-gradient(to right, rgb(195,51,195), rgb(255,255,255), rgb(51,195,51))\"></div>"
                "<div class=\"legend-ticks\"><span>bilinear closer by &ge; " + top +
                " levels</span><span>alike</span><span>learned closer by &ge; " + top +
                " levels</span></div></div>\n<p class=\"note\">Where each wins: per pixel, |bilinear - "
                "ground truth| minus |learned - ground truth| (the mean over R, G, B), averaged like the "
                "views; green where the learned image is closer to the ground truth, magenta where "
                "bilinear is, white where they are alike.</p>\n";
    }
    return html;
}

std::string notes_html(const std::vector<ReportNote>& notes) {
    std::string out;
    for (const ReportNote& note : notes)
        out += "<p class=\"explain\"><b>" + html_escape(note.lead) + "</b> " + html_escape(note.text) + "</p>\n";
    return out;
}

std::string rows_table(const std::vector<ReportRow>& rows) {
    std::string out = "<table>\n";
    for (const ReportRow& row : rows)
        out += "<tr><th>" + html_escape(row.name) + "</th><td>" + html_escape(row.value) +
               "</td></tr>\n";
    return out + "</table>\n";
}

} // namespace

std::string embedded_img(const PngBytes& png, const std::string& alt, const std::string& cls,
                         const std::string& attributes) {
    return "<img src=\"" + data_uri(png) + "\" alt=\"" + html_escape(alt) + "\"" +
           (cls.empty() ? "" : " class=\"" + cls + "\"") + attributes + ">";
}

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        switch (ch) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += ch;
        }
    }
    return out;
}

std::string render_report_html(const ReportPage& page) {
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    html += "<title>" + html_escape(page.title) + "</title>\n<style>" + kStyle + "</style>\n";
    html += "</head>\n<body>\n<h1>" + html_escape(page.title) + "</h1>\n";
    if (!page.subtitle.empty()) html += "<p class=\"subtitle\">" + html_escape(page.subtitle) + "</p>\n";

    if (!page.run_notes.empty()) html += "<section class=\"run-notes\">\n" + notes_html(page.run_notes) + "</section>\n";
    html += "<h2>Comparison</h2>\n";
    if (!page.view_note.empty()) html += "<p class=\"note\">" + html_escape(page.view_note) + "</p>\n";
    html += "<div class=\"side-by-side\">\n";
    std::vector<std::string> view_labels;
    for (const ReportImage& image : page.images) {
        html += "<figure>" + embedded_img(image.png, image.label, "", view_attribute(view_labels.size())) +
                "<figcaption><b>" +
                html_escape(image.label) + "</b>";
        if (image.psnr || image.ssim) {
            html += "<br><span class=\"numbers\">";
            if (image.psnr) html += "PSNR " + fixed(*image.psnr, 2) + " dB";
            if (image.psnr && image.ssim) html += " &middot; ";
            if (image.ssim) html += "SSIM " + fixed(*image.ssim, 4);
            html += "</span>";
        } else {
            html += "<br><span class=\"numbers\">reference</span>";
        }
        html += "</figcaption></figure>\n";
        view_labels.push_back(image.label);
    }
    html += "</div>\n";
    if (!page.baseline_notes.empty())
        html += "<section class=\"baseline-notes\">\n" + notes_html(page.baseline_notes) + "</section>\n";
    const size_t image_views = view_labels.size();
    if (page.error_maps) {
        view_labels.push_back("Error map, bilinear");
        view_labels.push_back("Error map, learned");
        if (!page.error_maps->win_map.empty()) view_labels.push_back("Where each wins");
    }
    if (!page.crops.empty()) html += crops_section(page.crops);
    if (page.error_maps) html += error_maps_html(*page.error_maps, image_views);
    // A/B starts on the second and third images (bilinear | learned: the pair the page is about),
    // or the first two.
    if (image_views >= 2)
        html += ab_view_section(view_labels, image_views >= 3 ? 1 : 0, image_views >= 3 ? 2 : 1);
    if (!page.rate_plot_svg.empty())
        html += "<h2>Bytes against quality</h2>\n<div class=\"rate-plot\">" + page.rate_plot_svg + "</div>\n";

    if (!page.snapshots.empty()) {
        html += "<h2>Training snapshots</h2>\n<p>Top row: the prediction; bottom row: the learned "
                "feature grid (its first three channels as RGB, min-max normalised per frame).</p>\n";
        html += "<table class=\"strip\">\n<tr><th></th>";
        for (const ReportSnapshot& s : page.snapshots)
            html += "<th>Step " + std::to_string(s.step) + "</th>";
        html += "</tr>\n";
        auto row = [&](const char* name, bool feature) {
            html += std::string("<tr><th>") + name + "</th>";
            for (const ReportSnapshot& s : page.snapshots) {
                const std::optional<PngBytes>& png = feature ? s.feature : s.prediction;
                const std::string& href = feature ? s.feature_href : s.prediction_href;
                html += "<td>";
                if (png) {
                    std::string picture = embedded_img(*png, std::string(name) + " at step " + std::to_string(s.step),
                                              feature ? "feature" : "");
                    html += href.empty() ? picture
                                         : "<a href=\"" + html_escape(href) + "\">" + picture + "</a>";
                }
                html += "</td>";
            }
            html += "</tr>\n";
        };
        row("Prediction", false);
        row("Feature grid", true);
        html += "</table>\n";
    }
    if (page.training_curve)
        html += "<h2>Training curve</h2>\n<div class=\"curve\">" +
                embedded_img(*page.training_curve, "training loss and PSNR") + "</div>\n";
    if (!page.quality.empty())
        html += "<h2>Metrics</h2>\n" + rows_table(page.quality) + "<section class=\"metric-notes\">\n" +
                notes_html(page.metric_notes) + "</section>\n";
    if (!page.training.empty()) html += "<h2>Training, device and model</h2>\n" + rows_table(page.training);
    if (image_views >= 2) html += ab_view_script();
    if (!page.crops.empty()) html += crops_script();
    html += "</body>\n</html>\n";
    return html;
}

} // namespace ff::neural
