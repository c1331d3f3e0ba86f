#include "report_rate_plot.hpp"

#include "report_page.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ff::neural {

namespace {

constexpr double kWidth = 680, kHeight = 400;
constexpr double kLeft = 60, kRight = 180, kTop = 20, kBottom = 50; // margins; the legend on the right

std::string number(double value, int digits = 1) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string bytes_label(double bytes) {
    if (bytes >= 1e6) return number(bytes / 1e6, bytes >= 1e7 ? 0 : 1) + " MB";
    if (bytes >= 1e3) return number(bytes / 1e3, bytes >= 1e4 ? 0 : 1) + " kB";
    return number(bytes, 0) + " B";
}

} // namespace

std::string rate_plot_svg(const std::vector<RateSeries>& series) {
    double lo_b = std::numeric_limits<double>::max(), hi_b = 0;
    double lo_p = std::numeric_limits<double>::max(), hi_p = std::numeric_limits<double>::lowest();
    for (const RateSeries& s : series)
        for (const RatePoint& p : s.points) {
            if (!(p.bytes > 0) || !std::isfinite(p.psnr)) continue;
            lo_b = std::min(lo_b, p.bytes), hi_b = std::max(hi_b, p.bytes);
            lo_p = std::min(lo_p, p.psnr), hi_p = std::max(hi_p, p.psnr);
        }
    if (hi_b == 0) return {};
    // Whole decades of bytes; whole steps of 2 or 5 dB.
    const double d0 = std::floor(std::log10(lo_b)), d1 = std::max(d0 + 1, std::ceil(std::log10(hi_b)));
    const double step = hi_p - lo_p > 20 ? 5 : 2;
    const double p0 = std::floor(lo_p / step) * step, p1 = std::max(p0 + step, std::ceil(hi_p / step) * step);
    const double w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
    auto x_of = [&](double bytes) { return kLeft + w * (std::log10(bytes) - d0) / (d1 - d0); };
    auto y_of = [&](double psnr) { return kTop + h * (1 - (psnr - p0) / (p1 - p0)); };

    std::string svg = "<svg viewBox=\"0 0 " + number(kWidth, 0) + " " +
                      number(kHeight, 0) + "\" width=\"" + number(kWidth, 0) + "\" height=\"" + number(kHeight, 0) +
                      "\" role=\"img\" aria-label=\"PSNR against file size\" font-family=\"sans-serif\" font-size=\"12\">\n";
    // Grid and ticks.
    for (double d = d0; d <= d1; ++d)
        for (int m : {1, 2, 5}) {
            const double bytes = m * std::pow(10.0, d);
            if (std::log10(bytes) > d1 + 1e-9) continue;
            const std::string x = number(x_of(bytes));
            svg += "<line x1=\"" + x + "\" y1=\"" + number(kTop) + "\" x2=\"" + x + "\" y2=\"" + number(kTop + h) +
                   "\" stroke=\"" + (m == 1 ? "#ccc" : "#eee") + "\"/>\n";
            if (m == 1 || d1 - d0 <= 2)
                svg += "<text x=\"" + x + "\" y=\"" + number(kTop + h + 16) + "\" text-anchor=\"middle\">" +
                       bytes_label(bytes) + "</text>\n";
        }
    for (double p = p0; p <= p1 + 1e-9; p += step) {
        const std::string y = number(y_of(p));
        svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + y + "\" x2=\"" + number(kLeft + w) + "\" y2=\"" + y +
               "\" stroke=\"#eee\"/>\n<text x=\"" + number(kLeft - 6) + "\" y=\"" + y +
               "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + number(p, 0) + "</text>\n";
    }
    svg += "<rect x=\"" + number(kLeft) + "\" y=\"" + number(kTop) + "\" width=\"" + number(w) + "\" height=\"" +
           number(h) + "\" fill=\"none\" stroke=\"#888\"/>\n";
    svg += "<text x=\"" + number(kLeft + w / 2) + "\" y=\"" + number(kHeight - 8) +
           "\" text-anchor=\"middle\">file size (bytes, logarithmic)</text>\n";
    svg += "<text transform=\"translate(14 " + number(kTop + h / 2) + ") rotate(-90)\" text-anchor=\"middle\">"
           "PSNR (dB)</text>\n";
    // The series, and the legend.
    double legend_y = kTop + 10;
    for (const RateSeries& s : series) {
        std::vector<RatePoint> points;
        for (const RatePoint& p : s.points)
            if (p.bytes > 0 && std::isfinite(p.psnr)) points.push_back(p);
        if (points.empty()) continue;
        std::sort(points.begin(), points.end(), [](const RatePoint& a, const RatePoint& b) { return a.bytes < b.bytes; });
        svg += "<g class=\"series\" data-name=\"" + html_escape(s.name) + "\">\n";
        if (s.line && points.size() > 1) {
            svg += "<polyline fill=\"none\" stroke=\"" + s.colour + "\" stroke-width=\"2\" points=\"";
            for (const RatePoint& p : points) svg += number(x_of(p.bytes)) + "," + number(y_of(p.psnr)) + " ";
            svg += "\"/>\n";
        }
        for (const RatePoint& p : points) {
            svg += "<circle cx=\"" + number(x_of(p.bytes)) + "\" cy=\"" + number(y_of(p.psnr)) + "\" r=\"" +
                   (s.line ? "3" : "6") + "\" fill=\"" + s.colour + "\"" +
                   (s.line ? std::string() : " stroke=\"#000\"") + "><title>" +
                   html_escape(s.name + (p.label.empty() ? "" : ", " + p.label) + ": " +
                               bytes_label(p.bytes) + ", " + number(p.psnr, 2) + " dB") +
                   "</title></circle>\n";
            if (!s.line && !p.label.empty())
                svg += "<text x=\"" + number(x_of(p.bytes) + 9) + "\" y=\"" + number(y_of(p.psnr) - 8) + "\">" +
                       html_escape(p.label) + "</text>\n";
        }
        svg += "</g>\n";
        const std::string lx = number(kLeft + w + 14), ly = number(legend_y);
        svg += s.line ? "<line x1=\"" + lx + "\" y1=\"" + ly + "\" x2=\"" + number(kLeft + w + 34) + "\" y2=\"" +
                            ly + "\" stroke=\"" + s.colour + "\" stroke-width=\"2\"/>\n"
                      : "<circle cx=\"" + number(kLeft + w + 24) + "\" cy=\"" + ly + "\" r=\"5\" fill=\"" +
                            s.colour + "\" stroke=\"#000\"/>\n";
        svg += "<text x=\"" + number(kLeft + w + 40) + "\" y=\"" + ly + "\" dominant-baseline=\"middle\">" +
               html_escape(s.name) + "</text>\n";
        legend_y += 20;
    }
    return svg + "</svg>\n";
}

} // namespace ff::neural
