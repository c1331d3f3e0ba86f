#include <fieldflow/host/progress.hpp>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdlib>

namespace fieldflow::host {
namespace {

using Clock = std::chrono::steady_clock;

std::string duration_text(double seconds) {
    char buf[32];
    const auto s = static_cast<uint64_t>(seconds + 0.5);
    if (s >= 3600) std::snprintf(buf, sizeof buf, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s / 60 % 60);
    else if (s >= 60) std::snprintf(buf, sizeof buf, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
    else std::snprintf(buf, sizeof buf, "%" PRIu64 "s", s);
    return buf;
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

} // namespace

std::chrono::milliseconds plain_progress_interval() {
    if (const char* text = std::getenv("FIELDFLOW_PROGRESS_SECONDS"); text && *text) {
        char* end = nullptr;
        const double seconds = std::strtod(text, &end);
        if (end && *end == '\0' && seconds >= 0.05 && seconds <= 3600)
            return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000 + 0.5));
    }
    return std::chrono::seconds(5);
}

void note_progress(ProgressState& s, uint64_t done, Clock::time_point now) {
    if (!s.has_update) {
        s.has_update = true;
        s.first_update = s.window_start = now;
        s.first_done = s.window_done = done;
    }
    s.done = done;
    const double dt = seconds_between(s.window_start, now);
    if (now - s.window_start < kRateWindow || done <= s.window_done) return;
    const double rate = double(done - s.window_done) / dt;
    const bool agrees = s.window_rate > 0 &&
                        std::abs(rate - s.window_rate) <= kRateTolerance * std::max(rate, s.window_rate);
    if (s.stable_rate > 0) s.stable_rate = 0.7 * s.stable_rate + 0.3 * rate; // smoothed
    else if (agrees) s.stable_rate = 0.5 * (rate + s.window_rate);
    s.window_rate = rate;
    s.window_start = now;
    s.window_done = done;
}

std::string format_progress_line(const std::string& name, const ProgressState& state,
                                 Clock::time_point now, size_t width) {
    char buf[128];
    if (!state.has_update) {
        std::snprintf(buf, sizeof buf, "  running %s", duration_text(seconds_between(state.started, now)).c_str());
        std::string line = name + buf;
        if (width > 0 && line.size() > width) line.resize(width);
        return line;
    }
    // The parts, from the most to the least needed where the width is short: the count, the ETA
    // and the node's detail (a training's measured dB) stay; the rate, then the bar go first, and
    // only then is the detail cut at its end.
    std::string bar, count, rate, eta;
    if (state.total > 0) {
        constexpr int kBar = 24;
        const double fraction = std::min(1.0, double(state.done) / double(state.total));
        const int filled = int(fraction * kBar);
        bar = " [" + std::string(filled, '#') + std::string(kBar - filled, '.') + "]";
        std::snprintf(buf, sizeof buf, " %" PRIu64 "/%" PRIu64, state.done, state.total);
        count = buf;
    } else if (state.done > 0) {
        std::snprintf(buf, sizeof buf, " %" PRIu64, state.done);
        count = buf;
    } // else a phase with no count (one long call): its detail says what it is
    if (state.stable_rate > 0) {
        std::snprintf(buf, sizeof buf, "  %.4g/s", state.stable_rate);
        rate = buf;
        if (state.total > state.done)
            eta = "  ETA " + duration_text(double(state.total - state.done) / state.stable_rate);
    }
    const std::string detail = state.detail.empty() ? "" : "  " + state.detail;
    std::string line = name + bar + count + rate + eta + detail;
    if (width > 0 && line.size() > width) line = name + bar + count + eta + detail;
    if (width > 0 && line.size() > width) line = name + count + eta + detail;
    if (width > 0 && line.size() > width) line.resize(width);
    return line;
}

ProgressBoard::ProgressBoard(FILE* out, bool live, bool enabled,
                             std::chrono::milliseconds plain_interval)
    : out_(out), live_(live), enabled_(enabled), plain_interval_(plain_interval) {
    if (enabled_) ticker_ = std::thread([this] { tick_loop(); });
}

ProgressBoard::~ProgressBoard() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        clear_locked();
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
}

void ProgressBoard::tick_loop() {
    const auto tick = live_ ? std::chrono::milliseconds(250)
                            : std::min<std::chrono::milliseconds>(plain_interval_, std::chrono::seconds(1));
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, tick);
        if (stopping_) break;
        if (live_) {
            if (!order_.empty()) draw_locked();
        } else {
            print_due_plain_lines_locked();
        }
    }
}

void ProgressBoard::print_due_plain_lines_locked() {
    const auto now = Clock::now();
    for (const std::string& node : order_) {
        ProgressState& s = states_[node];
        if (now - s.last_plain_print < plain_interval_) continue;
        s.last_plain_print = now;
        std::fprintf(out_, "%s\n", format_progress_line(node, s, now, 0).c_str());
    }
    std::fflush(out_);
}

bool ProgressBoard::is_terminal(FILE* f) { return ::isatty(::fileno(f)) != 0; }

size_t ProgressBoard::width() const {
    winsize ws{};
    if (::ioctl(::fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1) return ws.ws_col - 1;
    return 79; // a wrapped line would break the cursor arithmetic, so always cut
}

void ProgressBoard::clear_locked() {
    if (!live_ || drawn_lines_ == 0) return;
    // Up to the first live line, then erase everything below it.
    std::fprintf(out_, "\x1b[%zuA\r\x1b[J", drawn_lines_);
    drawn_lines_ = 0;
}

void ProgressBoard::draw_locked() {
    if (!live_ || !enabled_) return;
    clear_locked();
    const auto now = Clock::now();
    const size_t w = width();
    for (const std::string& node : order_) {
        std::fprintf(out_, "%s\n", format_progress_line(node, states_[node], now, w).c_str());
        ++drawn_lines_;
    }
    std::fflush(out_);
    last_draw_ = now;
}

void ProgressBoard::start(const std::string& node) {
    std::lock_guard lock(mutex_);
    ProgressState state;
    state.started = state.last_plain_print = Clock::now();
    states_[node] = state;
    order_.push_back(node);
    draw_locked();
}

void ProgressBoard::update(const std::string& node, uint64_t done, uint64_t total,
                           const std::string& detail) {
    std::lock_guard lock(mutex_);
    auto it = states_.find(node);
    if (it == states_.end()) return;
    ProgressState& s = it->second;
    const auto now = Clock::now();
    note_progress(s, done, now);
    s.total = total;
    s.detail = detail;
    if (!enabled_) return;
    if (live_) {
        if (now - last_draw_ >= std::chrono::milliseconds(100)) draw_locked();
    } else {
        print_due_plain_lines_locked();
    }
}

void ProgressBoard::finish(const std::string& node) {
    std::lock_guard lock(mutex_);
    states_.erase(node);
    order_.erase(std::remove(order_.begin(), order_.end(), node), order_.end());
    draw_locked();
}

void ProgressBoard::print(const std::string& line) {
    std::lock_guard lock(mutex_);
    clear_locked();
    std::fprintf(out_, "%s\n", line.c_str());
    if (live_ && enabled_) draw_locked();
    else std::fflush(out_);
}

} // namespace fieldflow::host
