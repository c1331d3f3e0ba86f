#include "report_page.hpp"

#include "base64.hpp"

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
)";

std::string data_uri(const PngBytes& png) {
    return "data:image/png;base64," + base64_encode(png);
}

std::string img(const PngBytes& png, const std::string& alt, const std::string& cls = {}) {
    return "<img src=\"" + data_uri(png) + "\" alt=\"" + html_escape(alt) + "\"" +
           (cls.empty() ? "" : " class=\"" + cls + "\"") + ">";
}

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string rows_table(const std::vector<ReportRow>& rows) {
    std::string out = "<table>\n";
    for (const ReportRow& row : rows)
        out += "<tr><th>" + html_escape(row.name) + "</th><td>" + html_escape(row.value) +
               "</td></tr>\n";
    return out + "</table>\n";
}

} // namespace

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

    html += "<h2>Comparison</h2>\n<div class=\"side-by-side\">\n";
    for (const ReportImage& image : page.images) {
        html += "<figure>" + img(image.png, image.label) + "<figcaption><b>" +
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
    }
    html += "</div>\n";

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
                    std::string picture = img(*png, std::string(name) + " at step " + std::to_string(s.step),
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
                img(*page.training_curve, "training loss and PSNR") + "</div>\n";
    if (!page.quality.empty()) html += "<h2>Metrics</h2>\n" + rows_table(page.quality);
    if (!page.training.empty()) html += "<h2>Training, device and model</h2>\n" + rows_table(page.training);
    html += "</body>\n</html>\n";
    return html;
}

} // namespace ff::neural
