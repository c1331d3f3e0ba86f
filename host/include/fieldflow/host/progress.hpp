// Progress display. On a terminal: one live line per running node (bar, done/total, rate, ETA,
// detail), redrawn in place. Otherwise: one plain line per node every few seconds. Log lines are
// printed above the live lines, so the two never tear each other.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fieldflow::host {

struct ProgressState {
    uint64_t done = 0;
    uint64_t total = 0;
    std::string detail;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point first_update;
    uint64_t first_done = 0;
    bool has_update = false;
    std::chrono::steady_clock::time_point last_plain_print;
    // The rate is measured over windows of at least kRateWindow; it is shown, with an ETA, only
    // once two windows in a row agree within kRateTolerance (the first steps of a run include
    // warm-up: compiling kernels, filling caches), so the ETA does not swing at the start.
    std::chrono::steady_clock::time_point window_start;
    uint64_t window_done = 0;
    double window_rate = 0; // of the last finished window; 0: none yet
    double stable_rate = 0; // items/s, smoothed; 0: not stable yet
};

inline constexpr std::chrono::milliseconds kRateWindow{1000};
inline constexpr double kRateTolerance = 0.25;

// Records that `state` reached `done` at `now`: the first update, and the rate windows.
void note_progress(ProgressState& state, uint64_t done, std::chrono::steady_clock::time_point now);

// "name [#######.....]  1200/40000  250/s  ETA 2m35s  loss 0.0123", fitted to `width` columns
// (0: any) by leaving out the rate, then the bar, before the detail is cut; rate and ETA only once
// the rate is stable.
std::string format_progress_line(const std::string& name, const ProgressState& state,
                                 std::chrono::steady_clock::time_point now, size_t width);

// The interval between plain progress lines (output not a terminal): $FIELDFLOW_PROGRESS_SECONDS
// when it is a number from 0.05 to 3600, else 5 s. A log that needs a sign of what a node is doing
// soon after it starts (a test that interrupts a node mid-way) sets it short.
std::chrono::milliseconds plain_progress_interval();

class ProgressBoard {
public:
    // live: redraw lines in place (a terminal). enabled: show progress at all (not --quiet).
    ProgressBoard(FILE* out, bool live, bool enabled,
                  std::chrono::milliseconds plain_interval = plain_progress_interval());
    ~ProgressBoard();

    void start(const std::string& node);
    void update(const std::string& node, uint64_t done, uint64_t total, const std::string& detail);
    void finish(const std::string& node);
    void print(const std::string& line); // one full line of log output

    static bool is_terminal(FILE* f);

private:
    void tick_loop(); // redraws elapsed times, prints plain lines for quiet nodes
    void print_due_plain_lines_locked();
    void clear_locked();
    void draw_locked();
    size_t width() const;

    std::mutex mutex_;
    FILE* out_;
    bool live_;
    bool enabled_;
    std::chrono::milliseconds plain_interval_;
    std::vector<std::string> order_; // running nodes, in start order
    std::map<std::string, ProgressState> states_;
    size_t drawn_lines_ = 0;
    std::chrono::steady_clock::time_point last_draw_;
    bool stopping_ = false;
    std::condition_variable wake_;
    std::thread ticker_;
};

} // namespace fieldflow::host
