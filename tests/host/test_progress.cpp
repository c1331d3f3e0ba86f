// Progress lines.
#include <fieldflow/host/batch/batch_progress.hpp>
#include <fieldflow/host/progress.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace fieldflow::host {
namespace {

using namespace std::chrono_literals;

TEST(Progress, LineShowsBarCountRateEtaAndDetail) {
    ProgressState s;
    const auto t0 = std::chrono::steady_clock::time_point{} + 100s;
    s.started = t0;
    s.total = 1000;
    s.detail = "loss 0.0123";
    for (int i = 0; i <= 10; ++i) note_progress(s, 25 * i, t0 + i * 1s); // a steady 25/s
    EXPECT_EQ(format_progress_line("train", s, t0 + 10s, 0),
              "train [######..................] 250/1000  25/s  ETA 30s  loss 0.0123");
    // A short line keeps the count, the ETA and the detail: the rate, then the bar go first.
    EXPECT_EQ(format_progress_line("train", s, t0 + 10s, 65),
              "train [######..................] 250/1000  ETA 30s  loss 0.0123");
    EXPECT_EQ(format_progress_line("train", s, t0 + 10s, 40), "train 250/1000  ETA 30s  loss 0.0123");
    EXPECT_EQ(format_progress_line("train", s, t0 + 10s, 30), "train 250/1000  ETA 30s  loss ");
    ProgressState idle;
    idle.started = t0;
    EXPECT_EQ(format_progress_line("load", idle, t0 + 75s, 0), "load  running 1m15s");
}

TEST(Progress, NoRateOrEtaUntilTheRateIsStable) {
    ProgressState s;
    const auto t0 = std::chrono::steady_clock::time_point{} + 100s;
    s.started = t0;
    s.total = 200;
    // Warm-up: 1 step in the first 1.7 s (a 0.58/s rate would give an ETA of 5m43s), then 25/s.
    note_progress(s, 0, t0);
    note_progress(s, 1, t0 + 1700ms);
    EXPECT_EQ(format_progress_line("t", s, t0 + 1700ms, 0), "t [........................] 1/200");
    note_progress(s, 26, t0 + 2700ms); // the first fast window disagrees with the warm-up one
    EXPECT_EQ(s.stable_rate, 0.0);
    note_progress(s, 51, t0 + 3700ms); // the second agrees: stable
    EXPECT_NEAR(s.stable_rate, 25.0, 1e-9);
    EXPECT_EQ(format_progress_line("t", s, t0 + 3700ms, 0),
              "t [######..................] 51/200  25/s  ETA 6s");
    // Updates closer together than the window do not move the rate.
    note_progress(s, 52, t0 + 3800ms);
    EXPECT_NEAR(s.stable_rate, 25.0, 1e-9);
}

TEST(Progress, PlainModePrintsPeriodicLines) {
    FILE* f = std::tmpfile();
    {
        ProgressBoard board(f, false, true, 20ms);
        board.start("n");
        for (int i = 1; i <= 5; ++i) {
            std::this_thread::sleep_for(30ms);
            board.update("n", i, 5, "");
        }
        board.print("done");
        board.finish("n");
    }
    std::rewind(f);
    char buf[4096] = {0};
    std::string text(buf, std::fread(buf, 1, sizeof buf - 1, f));
    std::fclose(f);
    EXPECT_NE(text.find("n [#"), std::string::npos) << text;
    EXPECT_NE(text.find("done\n"), std::string::npos);
    EXPECT_EQ(text.find("\x1b["), std::string::npos); // no escape codes when not a terminal
}

// A node in one long call reports no count, only what it does: the line shows just that.
TEST(Progress, APhaseWithoutACountShowsOnlyItsDetail) {
    const auto t0 = std::chrono::steady_clock::now();
    ProgressState s;
    s.started = t0;
    note_progress(s, 0, t0);
    s.detail = "decoding 'big.png' (8192x8192), 2.0 s";
    EXPECT_EQ(format_progress_line("image", s, t0, 0), "image  decoding 'big.png' (8192x8192), 2.0 s");
    s.done = 7;
    EXPECT_EQ(format_progress_line("image", s, t0, 0), "image 7  decoding 'big.png' (8192x8192), 2.0 s");
}

TEST(Progress, PlainIntervalFromTheEnvironment) {
    const char* before = std::getenv("FIELDFLOW_PROGRESS_SECONDS");
    const std::string saved = before ? before : "";
    ::unsetenv("FIELDFLOW_PROGRESS_SECONDS");
    EXPECT_EQ(plain_progress_interval(), 5000ms);
    ::setenv("FIELDFLOW_PROGRESS_SECONDS", "0.1", 1);
    EXPECT_EQ(plain_progress_interval(), 100ms);
    for (const char* bad : {"0", "0.01", "abc", "1s", "9999"}) {
        ::setenv("FIELDFLOW_PROGRESS_SECONDS", bad, 1);
        EXPECT_EQ(plain_progress_interval(), 5000ms) << bad;
    }
    if (before) ::setenv("FIELDFLOW_PROGRESS_SECONDS", saved.c_str(), 1);
    else ::unsetenv("FIELDFLOW_PROGRESS_SECONDS");
}

} // namespace
} // namespace fieldflow::host

namespace fieldflow::host {
namespace {

// The batch's ETA comes from the measured time per image, shown from the first finished image:
// images in flight end when they have run that long, and queued ones follow on the free slots.
TEST(BatchProgressEta, FromMeasuredImageTimesOnceOneImageFinished) {
    FILE* f = std::tmpfile();
    batch::BatchProgress progress(f, false, true, 5, 0);
    const auto t0 = batch::BatchProgress::Clock::now();
    progress.started("a", "", "");
    progress.started("b", "", "");
    EXPECT_EQ(progress.status_line(t0).find("ETA"), std::string::npos);
    progress.finished("a", true, "done a");
    const auto now = batch::BatchProgress::Clock::now();
    const std::string line = progress.status_line(now);
    // An image took about no time, so what is left takes about none: never minutes.
    EXPECT_NE(line.find("ETA 0s"), std::string::npos) << line;
    std::fclose(f);
}

} // namespace
} // namespace fieldflow::host
