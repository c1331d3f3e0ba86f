#include "training_log.hpp"

#include "common/atomic_write.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ff::neural {

namespace {

std::string number(double value, const char* format = "%.9g") {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

// Maps values onto a pixel span, linearly or in log10.
struct Axis {
    double lo = 0, hi = 1;
    bool log = false;
    double to_unit(double v) const {
        double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
        double x = log ? std::log10(std::max(v, 1e-300)) : v;
        return b > a ? (x - a) / (b - a) : 0.5;
    }
};

Axis fit_axis(double lo, double hi, bool log) {
    Axis axis{lo, hi, log};
    if (!(hi > lo)) {
        axis.lo = log ? lo / 2 : lo - 1;
        axis.hi = log ? hi * 2 : hi + 1;
    }
    return axis;
}

} // namespace

std::string TrainingLog::csv() const {
    std::string out = "step,loss,psnr,steps_per_second,elapsed_seconds\n";
    for (const TrainingLogRow& row : rows_) {
        out += std::to_string(row.step) + "," + number(row.loss) + ",";
        if (row.psnr) out += number(*row.psnr, "%.4f");
        out += "," + number(row.steps_per_second, "%.2f") + "," +
               number(row.elapsed_seconds, "%.3f") + "\n";
    }
    return out;
}

cv::Mat TrainingLog::curve(int width, int height) const {
    const cv::Scalar background(255, 255, 255), ink(60, 60, 60), grid_ink(225, 225, 225);
    const cv::Scalar loss_colour(180, 110, 30), psnr_colour(40, 120, 230); // BGR: blue, orange
    cv::Mat image(height, width, CV_8UC3, background);
    const int left = 80, right = 80, top = 40, bottom = 50;
    const cv::Rect plot(left, top, width - left - right, height - top - bottom);
    cv::rectangle(image, plot, ink, 1);
    auto text = [&](const std::string& s, cv::Point at, cv::Scalar colour, double scale = 0.45) {
        cv::putText(image, s, at, cv::FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv::LINE_AA);
    };
    if (rows_.empty()) {
        text("no training steps logged", {plot.x + 20, plot.y + plot.height / 2}, ink, 0.6);
        return image;
    }

    double loss_lo = INFINITY, loss_hi = 0, psnr_lo = INFINITY, psnr_hi = -INFINITY;
    uint32_t step_hi = 1;
    for (const TrainingLogRow& r : rows_) {
        if (std::isfinite(r.loss) && r.loss > 0) {
            loss_lo = std::min(loss_lo, r.loss);
            loss_hi = std::max(loss_hi, r.loss);
        }
        if (r.psnr && std::isfinite(*r.psnr)) {
            psnr_lo = std::min(psnr_lo, *r.psnr);
            psnr_hi = std::max(psnr_hi, *r.psnr);
        }
        step_hi = std::max(step_hi, r.step);
    }
    const Axis x = fit_axis(1, std::max<double>(step_hi, 2), step_hi >= 100);
    const bool have_loss = loss_hi > 0, have_psnr = std::isfinite(psnr_lo);
    const Axis y_loss = have_loss ? fit_axis(loss_lo, loss_hi, true) : Axis{};
    const Axis y_psnr = have_psnr ? fit_axis(std::floor(psnr_lo - 0.5), std::ceil(psnr_hi + 0.5), false)
                                  : Axis{};
    auto px = [&](double step) { return plot.x + int(std::lround(x.to_unit(std::max(step, 1.0)) * plot.width)); };
    auto py = [&](const Axis& a, double v) {
        return plot.y + plot.height - int(std::lround(a.to_unit(v) * plot.height));
    };

    // Step ticks: powers of ten on a log axis, five even ticks otherwise.
    std::vector<double> ticks;
    if (x.log) {
        for (double t = 1; t <= x.hi; t *= 10) ticks.push_back(t);
    } else {
        for (int i = 0; i <= 5; ++i) ticks.push_back(std::round(x.lo + (x.hi - x.lo) * i / 5));
    }
    for (double t : ticks) {
        int X = px(t);
        cv::line(image, {X, plot.y}, {X, plot.y + plot.height}, grid_ink, 1);
        text(number(t, "%.0f"), {X - 12, plot.y + plot.height + 18}, ink);
    }
    text(x.log ? "step (log scale)" : "step", {plot.x + plot.width / 2 - 40, height - 10}, ink);

    for (int i = 0; i <= 4; ++i) {
        int Y = plot.y + plot.height - plot.height * i / 4;
        if (have_loss) {
            double v = std::pow(10.0, std::log10(y_loss.lo) +
                                          (std::log10(y_loss.hi) - std::log10(y_loss.lo)) * i / 4);
            text(number(v, "%.2e"), {4, Y + 4}, loss_colour, 0.4);
        }
        if (have_psnr) {
            double v = y_psnr.lo + (y_psnr.hi - y_psnr.lo) * i / 4;
            text(number(v, "%.1f"), {plot.x + plot.width + 6, Y + 4}, psnr_colour, 0.4);
        }
    }

    std::vector<cv::Point> loss_line, psnr_line;
    for (const TrainingLogRow& r : rows_) {
        if (have_loss && std::isfinite(r.loss) && r.loss > 0)
            loss_line.emplace_back(px(r.step), py(y_loss, r.loss));
        if (have_psnr && r.psnr && std::isfinite(*r.psnr))
            psnr_line.emplace_back(px(r.step), py(y_psnr, *r.psnr));
    }
    cv::polylines(image, loss_line, false, loss_colour, 2, cv::LINE_AA);
    cv::polylines(image, psnr_line, false, psnr_colour, 2, cv::LINE_AA);
    for (const cv::Point& p : psnr_line) cv::circle(image, p, 3, psnr_colour, cv::FILLED, cv::LINE_AA);

    text("training loss (MSE, log scale)", {plot.x + 8, top - 12}, loss_colour, 0.5);
    text("PSNR (dB)", {plot.x + plot.width - 80, top - 12}, psnr_colour, 0.5);
    return image;
}

std::filesystem::path TrainingLog::curve_path(const std::filesystem::path& csv_path) {
    std::filesystem::path out = csv_path;
    // A log path that is itself a .png must not be overwritten by its own curve.
    if (out.extension() == ".png") return out.replace_filename(out.stem().string() + "_curve.png");
    out.replace_extension(".png");
    return out;
}

void TrainingLog::write(const std::filesystem::path& csv_path) const {
    ff::nodes::atomic_write_file(csv_path, csv());
    cv::Mat picture = curve();
    ff::nodes::atomic_write(curve_path(csv_path), [&](const std::filesystem::path& temporary) {
        if (!cv::imwrite(temporary.string(), picture))
            throw Error("OpenCV could not write PNG " + temporary.string());
    });
}

} // namespace ff::neural
