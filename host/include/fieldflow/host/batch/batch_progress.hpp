// The batch's progress on stderr. On a terminal: one bar for the batch (done/failed/total,
// images/min, ETA) and one line per image in flight (its elapsed time and the last line of its
// log), redrawn in place, with log lines printed above. Otherwise: one plain line per finished
// image and a status line every few seconds.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

class BatchProgress {
public:
    using Clock = std::chrono::steady_clock;

    // total: images in this batch (or shard); skipped: already done by an earlier run.
    BatchProgress(FILE* out, bool live, bool quiet, size_t total, size_t skipped,
                  std::chrono::milliseconds plain_interval = std::chrono::seconds(10));
    ~BatchProgress();

    void started(const std::string& stem, const std::string& device,
                 const std::filesystem::path& log);
    void finished(const std::string& stem, bool ok, const std::string& line);
    void removed(const std::string& stem); // interrupted: neither done nor failed
    void print(const std::string& line);   // a log line, always shown
    void note(const std::string& line);    // a log line, hidden by --quiet
    void tick();                           // call often; redraws at most a few times a second

    // "batch [####....] 5/16  4 done  1 failed  3.2 images/min  ETA 3m26s"
    std::string status_line(Clock::time_point now) const;

private:
    struct Running {
        std::string stem, device;
        std::filesystem::path log;
        Clock::time_point started;
    };
    // Seconds left, from the measured per-image times (image_seconds_, not empty).
    double eta_seconds(Clock::time_point now) const;
    void clear();
    void draw(Clock::time_point now);
    size_t width() const;

    FILE* out_;
    bool live_, quiet_;
    size_t total_, skipped_;
    size_t done_ = 0, failed_ = 0;
    std::chrono::milliseconds plain_interval_;
    Clock::time_point started_, last_draw_, last_plain_;
    std::vector<Running> running_;
    std::vector<double> image_seconds_; // how long each image this run finished took
    size_t drawn_lines_ = 0;
};

} // namespace fieldflow::host::batch
