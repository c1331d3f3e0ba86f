// Progress lines.
#include <fieldflow/host/progress.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <thread>

namespace fieldflow::host {
namespace {

using namespace std::chrono_literals;

TEST(Progress, LineShowsBarCountRateEtaAndDetail) {
    ProgressState s;
    const auto t0 = std::chrono::steady_clock::time_point{} + 100s;
    s.started = t0;
    s.has_update = true;
    s.first_update = t0;
    s.first_done = 0;
    s.done = 250;
    s.total = 1000;
    s.detail = "loss 0.0123";
    EXPECT_EQ(format_progress_line("train", s, t0 + 10s, 0),
              "train [######..................] 250/1000  25/s  ETA 30s  loss 0.0123");
    EXPECT_EQ(format_progress_line("train", s, t0 + 10s, 12), "train [#####");
    ProgressState idle;
    idle.started = t0;
    EXPECT_EQ(format_progress_line("load", idle, t0 + 75s, 0), "load  running 1m15s");
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

} // namespace
} // namespace fieldflow::host
