#include <fieldflow/host/batch/batch_progress.hpp>
#include <fieldflow/host/batch/child_process.hpp>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace fieldflow::host::batch {
namespace {

std::string duration_text(double seconds) {
    char buf[32];
    const auto s = static_cast<unsigned long long>(seconds + 0.5);
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%lluh%02llum", s / 3600, s / 60 % 60);
    else if (s >= 60) std::snprintf(buf, sizeof buf, "%llum%02llus", s / 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%llus", s);
    return buf;
}

double seconds_between(BatchProgress::Clock::time_point a, BatchProgress::Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

BatchProgress::BatchProgress(FILE* out, bool live, bool quiet, size_t total, size_t skipped,
                             std::chrono::milliseconds plain_interval)
    : out_(out), live_(live && !quiet), quiet_(quiet), total_(total), skipped_(skipped),
      plain_interval_(plain_interval), started_(Clock::now()), last_plain_(started_) {}

BatchProgress::~BatchProgress() { clear(); }

std::string BatchProgress::status_line(Clock::time_point now) const {
    const size_t finished = skipped_ + done_ + failed_;
    constexpr int kBar = 24;
    const double fraction = total_ ? double(finished) / double(total_) : 1.0;
    const int filled = std::min(kBar, int(fraction * kBar));
    char buf[160];
    std::snprintf(buf, sizeof buf, "batch [%s%s] %zu/%zu  %zu done  %zu failed",
                  std::string(filled, '#').c_str(), std::string(kBar - filled, '.').c_str(), finished,
                  total_, skipped_ + done_, failed_);
    std::string line = buf;
    if (skipped_) line += "  (" + std::to_string(skipped_) + " from before)";
    // The rate counts only images this run finished: skipped ones took no time.
    const double elapsed = seconds_between(started_, now);
    const size_t ran = done_ + failed_;
    if (ran > 0 && elapsed > 0.0) {
        const double per_minute = double(ran) * 60.0 / elapsed;
        std::snprintf(buf, sizeof buf, "  %.3g images/min", per_minute);
        line += buf;
        if (finished < total_ && !image_seconds_.empty()) line += "  ETA " + duration_text(eta_seconds(now));
    }
    line += "  " + duration_text(elapsed);
    return line;
}

double BatchProgress::eta_seconds(Clock::time_point now) const {
    // From the measured time an image takes: each image in flight ends when it has run that
    // long, and those still queued follow on the first slot free, as many slots as run now.
    double per_image = 0;
    for (double s : image_seconds_) per_image += s;
    per_image /= double(image_seconds_.size());
    std::vector<double> slots;
    for (const Running& r : running_) slots.push_back(std::max(0.0, per_image - seconds_between(r.started, now)));
    if (slots.empty()) slots.push_back(0.0);
    const size_t finished = skipped_ + done_ + failed_;
    const size_t queued = total_ - std::min(total_, finished + running_.size());
    for (size_t i = 0; i < queued; ++i) *std::min_element(slots.begin(), slots.end()) += per_image;
    return *std::max_element(slots.begin(), slots.end());
}

void BatchProgress::started(const std::string& stem, const std::string& device,
                            const std::filesystem::path& log) {
    running_.push_back({stem, device, log, Clock::now()});
    if (!live_ && !quiet_) note("started " + stem + (device.empty() ? "" : " on device " + device));
}

void BatchProgress::finished(const std::string& stem, bool ok, const std::string& line) {
    for (const Running& r : running_)
        if (r.stem == stem) image_seconds_.push_back(seconds_between(r.started, Clock::now()));
    removed(stem);
    ok ? ++done_ : ++failed_;
    if (ok) note(line);
    else print(line);
}

void BatchProgress::removed(const std::string& stem) {
    running_.erase(std::remove_if(running_.begin(), running_.end(),
                                  [&](const Running& r) { return r.stem == stem; }),
                   running_.end());
}

void BatchProgress::print(const std::string& line) {
    clear();
    std::fprintf(out_, "%s\n", line.c_str());
    if (live_) draw(Clock::now());
    std::fflush(out_);
}

void BatchProgress::note(const std::string& line) {
    if (!quiet_) print(line);
}

void BatchProgress::tick() {
    if (quiet_) return;
    const auto now = Clock::now();
    if (live_) {
        if (now - last_draw_ >= std::chrono::milliseconds(250)) draw(now);
    } else if (now - last_plain_ >= plain_interval_) {
        last_plain_ = now;
        std::fprintf(out_, "%s\n", status_line(now).c_str());
        std::fflush(out_);
    }
}

size_t BatchProgress::width() const {
    winsize ws{};
    if (::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) return ws.ws_col - 1;
    return 79; // a wrapped line would break the cursor arithmetic, so always cut
}

void BatchProgress::clear() {
    if (!live_ || drawn_lines_ == 0) return;
    std::fprintf(out_, "\x1b[%zuA\r\x1b[J", drawn_lines_);
    drawn_lines_ = 0;
}

void BatchProgress::draw(Clock::time_point now) {
    if (!live_) return;
    clear();
    const size_t w = width();
    auto emit = [&](std::string line) {
        if (line.size() > w) line.resize(w);
        std::fprintf(out_, "%s\n", line.c_str());
        ++drawn_lines_;
    };
    emit(status_line(now));
    for (const Running& r : running_) {
        std::string line = "  " + r.stem;
        if (!r.device.empty()) line += " [device " + r.device + "]";
        line += "  " + duration_text(seconds_between(r.started, now));
        const std::string last = last_line_of(r.log);
        if (!last.empty()) line += "  | " + last;
        emit(line);
    }
    std::fflush(out_);
    last_draw_ = now;
}

} // namespace fieldflow::host::batch
