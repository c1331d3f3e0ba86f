// Shared node helpers: the feature-grid size rule, atomic file writes, work in bands and calls that
// a cancel abandons.
#include "common/atomic_write.hpp"
#include "common/bands.hpp"
#include "common/cancellable_call.hpp"
#include "common/grid_size.hpp"
#include "common/side_task.hpp"
#include "common/whole_file.hpp"
#include "helper_host.hpp"
#include "test_support.hpp"

#include <fieldflow/node.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <latch>
#include <stdexcept>
#include <mutex>
#include <thread>

namespace fs = std::filesystem;
using ff::nodes::GridSize;
using ff::test::HelperHost;
using ff::test::ScratchDir;

TEST(GridSize, AutoIsAQuarterRoundedDown) {
    EXPECT_EQ(ff::nodes::auto_grid_size(800, 550), (GridSize{200, 137})); // the seed's lake photo
    EXPECT_EQ(ff::nodes::auto_grid_size(751, 563), (GridSize{187, 140})); // leuvenA.jpg
    EXPECT_EQ(ff::nodes::auto_grid_size(800, 640), (GridSize{200, 160})); // graf1.png
    EXPECT_EQ(ff::nodes::auto_grid_size(7, 3), (GridSize{2, 2}));        // never below 2x2
    EXPECT_EQ(ff::nodes::auto_grid_size(12, 9), (GridSize{3, 2}));
    EXPECT_EQ(ff::nodes::resolve_grid_size("auto", 751, 563), (GridSize{187, 140}));
}

TEST(GridSize, WithValuesHoldsAModelsParameterCountAtTheImagesAspect) {
    // 30000x30000 RGB and a hash grid of 57,016,834 parameters: 4359x4360 cells x 3 values.
    const GridSize square = ff::nodes::grid_with_values(57016834, 3, 30000, 30000);
    EXPECT_EQ(square, (GridSize{4359, 4360}));
    EXPECT_LE(uint64_t(square.width) * square.height * 3, 57016834u);
    EXPECT_GT(uint64_t(square.width + 1) * (square.height + 1) * 3, 57016834u); // the largest that fits
    const GridSize wide = ff::nodes::grid_with_values(200 * 100 * 3, 3, 800, 400); // 2:1
    EXPECT_EQ(wide, (GridSize{200, 100}));
    EXPECT_EQ(ff::nodes::grid_with_values(200 * 100, 1, 800, 400), (GridSize{200, 100})); // gray
    EXPECT_EQ(ff::nodes::grid_with_values(1, 3, 800, 400), (GridSize{2, 2}));        // never below 2x2
    EXPECT_EQ(ff::nodes::grid_with_values(1u << 30, 3, 80, 40), (GridSize{80, 40})); // nor above the image
    // A model's own grid when it has one, else its parameters in values.
    EXPECT_EQ(ff::nodes::grid_of_model({187, 140}, 80143, 3, 751, 563), (GridSize{187, 140}));
    EXPECT_EQ(ff::nodes::grid_of_model({0, 0}, 200 * 100 * 3, 3, 800, 400), (GridSize{200, 100}));
}

TEST(GridSize, ExplicitSpecs) {
    EXPECT_EQ(ff::nodes::resolve_grid_size("200x137", 1, 1), (GridSize{200, 137}));
    EXPECT_EQ(ff::nodes::resolve_grid_size("64,32", 1, 1), (GridSize{64, 32}));
    EXPECT_EQ(ff::nodes::resolve_grid_size(" 20 X 10 ", 1, 1), (GridSize{20, 10}));
    for (const char* bad : {"", "abc", "0x5", "5x", "x5", "-3x4", "3.5x4", "4x4x4", "99999999x2"})
        EXPECT_THROW(ff::nodes::parse_grid_spec(bad), ff::Error) << "'" << bad << "'";
}

TEST(AtomicWrite, WritesAndCreatesFolders) {
    ScratchDir dir;
    const fs::path target = dir.path() / "a" / "b" / "out.json";
    ff::nodes::atomic_write_file(target, "{\"x\": 1}\n");
    EXPECT_EQ(ff::test::read_bytes(target.string()), "{\"x\": 1}\n");
    ff::nodes::atomic_write_file(target, "second");
    EXPECT_EQ(ff::test::read_bytes(target.string()), "second");
    EXPECT_EQ(ff::test::folder_entries(target.parent_path()), std::vector<std::string>{"out.json"});
}

// Several files at once: each written whole; one that fails (its folder is a file) is the error,
// and the others are still written.
TEST(AtomicWrite, SeveralFilesAtOnceEachWholeAndTheFailureRethrown) {
    ScratchDir dir;
    const std::string big(3 * ff::nodes::kWriteChunk + 5, 'x'); // several chunks
    ff::nodes::atomic_write_files({{dir.path() / "page.html", big}, {dir.path() / "m.json", "{}\n"},
                                   {dir.path() / "t" / "thumb.png", "png"}});
    EXPECT_EQ(ff::test::read_bytes(dir.file("page.html")), big);
    EXPECT_EQ(ff::test::read_bytes(dir.file("m.json")), "{}\n");
    EXPECT_EQ(ff::test::read_bytes((dir.path() / "t" / "thumb.png").string()), "png");

    ff::test::write_bytes(dir.file("blocker"), "a file where a folder is wanted");
    try {
        ff::nodes::atomic_write_files({{dir.path() / "blocker" / "x.png", "x"}, {dir.path() / "after.txt", "a"}});
        ADD_FAILURE() << "a write under a file did not fail";
    } catch (const ff::Error& e) {
        EXPECT_NE(std::string(e.what()).find("blocker"), std::string::npos) << e.what();
    }
    EXPECT_EQ(ff::test::read_bytes(dir.file("after.txt")), "a");
    EXPECT_THROW(ff::nodes::atomic_write_files({{dir.path() / "stopped.txt", "s"}}, [] { return true; }),
                 ff::Cancelled);
    EXPECT_FALSE(fs::exists(dir.path() / "stopped.txt"));
}

TEST(WholeFile, ReadsEveryByteAndNothingForAMissingFile) {
    ScratchDir dir;
    std::string content(200000, '\0'); // past any stream buffer, with zero bytes in it
    for (size_t i = 0; i < content.size(); ++i) content[i] = char(i * 7 % 251);
    ff::test::write_bytes(dir.file("data.bin"), content);
    const auto bytes = ff::nodes::read_whole_file(dir.file("data.bin"));
    ASSERT_TRUE(bytes.has_value());
    EXPECT_EQ(std::string(bytes->begin(), bytes->end()), content);
    ff::test::write_bytes(dir.file("empty"), "");
    ASSERT_TRUE(ff::nodes::read_whole_file(dir.file("empty")).has_value());
    EXPECT_TRUE(ff::nodes::read_whole_file(dir.file("empty"))->empty());
    EXPECT_FALSE(ff::nodes::read_whole_file(dir.file("missing")).has_value());
}

// A killed writer's temporary (its process gone, older than this one) is removed by the next
// write of the same target; a live writer's and another target's are left alone.
TEST(AtomicWrite, RemovesTheStaleTemporariesOfAKilledWriter) {
    ScratchDir dir;
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ASSERT_GT(child, 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child); // its pid now names no process
    const std::string dead = std::to_string(child), live = std::to_string(::getppid());
    const fs::path stale = dir.path() / (".image.tmp-" + dead + "-0-0000abcd.png");
    const fs::path running = dir.path() / (".image.tmp-" + live + "-0-0000abcd.png");
    const fs::path other = dir.path() / (".other.tmp-" + dead + "-0-0000abcd.png");
    for (const fs::path& p : {stale, running, other}) {
        ff::nodes::atomic_write_file(p.string() + ".x", "");
        fs::rename(p.string() + ".x", p);
        fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1));
    }
    ff::nodes::atomic_write_file(dir.path() / "image.png", "new");
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(running));
    EXPECT_TRUE(fs::exists(other));
}

TEST(AtomicWrite, FailedWriteLeavesTargetAndFolderUntouched) {
    ScratchDir dir;
    const std::string target = dir.file("keep.txt");
    ff::test::write_bytes(target, "original");
    fs::path seen_temporary;
    EXPECT_THROW(ff::nodes::atomic_write(target,
                                         [&](const fs::path& temporary) {
                                             seen_temporary = temporary;
                                             ff::test::write_bytes(temporary.string(), "partial");
                                             throw ff::Error("encoder failed");
                                         }),
                 ff::Error);
    EXPECT_EQ(seen_temporary.parent_path(), dir.path()); // same folder: rename stays atomic
    EXPECT_EQ(seen_temporary.extension(), ".txt");         // extension kept for codecs
    EXPECT_EQ(ff::test::read_bytes(target), "original");
    EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{"keep.txt"});
}

TEST(AtomicWrite, ClearErrorsForImpossibleTargets) {
    ScratchDir dir;
    ff::test::write_bytes(dir.file("blocker"), "a file where a folder should be");
    try {
        ff::nodes::atomic_write_file(dir.path() / "blocker" / "out.txt", "x");
        FAIL() << "expected an error";
    } catch (const ff::Error& e) {
        EXPECT_NE(std::string(e.what()).find("blocker"), std::string::npos) << e.what();
    }
    fs::create_directory(dir.path() / "folder");
    try {
        ff::nodes::atomic_write_file(dir.path() / "folder", "x");
        FAIL() << "expected an error";
    } catch (const ff::Error& e) {
        EXPECT_NE(std::string(e.what()).find("is an existing folder"), std::string::npos) << e.what();
    }
    EXPECT_EQ(ff::test::folder_entries(dir.path()), (std::vector<std::string>{"blocker", "folder"}));
}

namespace {

// A gate a test opens: what waits on it cannot finish before the test says so.
struct Gate {
    std::mutex mutex;
    std::condition_variable opened_signal;
    bool opened = false;
    void open() {
        {
            std::lock_guard lock(mutex);
            opened = true;
        }
        opened_signal.notify_all();
    }
    void wait() {
        std::unique_lock lock(mutex);
        opened_signal.wait(lock, [&] { return opened; });
    }
};

} // namespace

TEST(CancellableCall, ReturnsTheResultAndRethrowsTheCallsError) {
    HelperHost host;
    const ff::Node node = host.node();
    EXPECT_EQ(ff::nodes::call_cancellable_result(node, [] { return std::string("decoded"); }), "decoded");
    EXPECT_THROW(ff::nodes::call_cancellable(node, [] { throw ff::Error("corrupt file"); }), ff::Error);
}

// The point of it: a cancel is answered while the call is still running (it waits on a gate that
// only the test opens), and the call, once it ends, is dropped.
TEST(CancellableCall, ACancelIsAnsweredWhileTheCallStillRuns) {
    HelperHost host;
    const ff::Node node = host.node();
    auto gate = std::make_shared<Gate>();
    auto started = std::make_shared<std::atomic<bool>>(false);
    auto finished = std::make_shared<std::atomic<bool>>(false);
    int waits = 0;
    EXPECT_THROW(ff::nodes::call_cancellable(
                     node,
                     [gate, started, finished] {
                         started->store(true);
                         gate->wait();
                         finished->store(true);
                     },
                     [&](double) {
                         ++waits; // on the node's thread, while the call runs
                         if (started->load()) host.cancel = true;
                     }),
                 ff::Cancelled);
    EXPECT_FALSE(finished->load());
    EXPECT_GT(waits, 0);
    EXPECT_EQ(ff::nodes::abandoned_calls(), 1);
    gate->open();
    ff::nodes::wait_for_abandoned_calls();
    EXPECT_TRUE(finished->load());
    EXPECT_EQ(ff::nodes::abandoned_calls(), 0);
}

TEST(CancellableCall, AnAlreadyCancelledNodeNeverStartsTheCall) {
    HelperHost host;
    host.cancel = true;
    bool ran = false;
    EXPECT_THROW(ff::nodes::call_cancellable(host.node(), [&] { ran = true; }), ff::Cancelled);
    EXPECT_FALSE(ran);
    EXPECT_EQ(ff::nodes::abandoned_calls(), 0);
}

TEST(SideTask, ReturnsTheResultAndRethrowsTheWorksError) {
    ff::nodes::SideTask<int> sum([](const ff::nodes::StopRequested&) { return 40 + 2; });
    EXPECT_EQ(sum.get(), 42);
    ff::nodes::SideTask<int> failing([](const ff::nodes::StopRequested&) -> int {
        throw std::runtime_error("no such strip");
    });
    try {
        failing.get();
        FAIL() << "the work's error was not rethrown";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "no such strip");
    }
}

TEST(SideTask, RunsBesideTheCaller) {
    // The work waits for the caller to reach a point after starting it: it must be on its own
    // thread, or this would never end.
    std::latch caller_ran(1);
    ff::nodes::SideTask<bool> task([&](const ff::nodes::StopRequested&) {
        caller_ran.wait();
        return true;
    });
    caller_ran.count_down();
    EXPECT_TRUE(task.get());
}

TEST(SideTask, LeavingScopeStopsTheWorkAndWaitsForIt) {
    std::latch started(1);
    std::atomic<bool> saw_stop{false}, finished{false};
    {
        ff::nodes::SideTask<int> endless([&](const ff::nodes::StopRequested& stop_requested) {
            started.count_down();
            while (!stop_requested()) std::this_thread::yield();
            saw_stop = true;
            finished = true;
            return 0;
        });
        started.wait();
    } // no get(): as when the node throws
    EXPECT_TRUE(saw_stop);
    EXPECT_TRUE(finished); // waited for, not abandoned
}

TEST(Bands, CoverEveryRowInOrderAndStopAtACancel) {
    HelperHost host;
    const ff::Node node = host.node();
    const size_t row_bytes = ff::nodes::kBandBytes / 10; // 10 rows a band
    EXPECT_EQ(ff::nodes::band_rows(row_bytes), 10);
    EXPECT_EQ(ff::nodes::band_rows(ff::nodes::kBandBytes * 3), 1); // a huge row: one at a time
    std::vector<std::pair<int, int>> bands, reported;
    ff::nodes::for_each_band(
        node, 25, row_bytes, [&](int first, int end) { bands.emplace_back(first, end); },
        [&](int done, int rows) { reported.emplace_back(done, rows); });
    EXPECT_EQ(bands, (std::vector<std::pair<int, int>>{{0, 10}, {10, 20}, {20, 25}}));
    EXPECT_EQ(reported, (std::vector<std::pair<int, int>>{{10, 25}, {20, 25}, {25, 25}}));

    bands.clear();
    EXPECT_THROW(ff::nodes::for_each_band(node, 25, row_bytes,
                                          [&](int first, int end) {
                                              bands.emplace_back(first, end);
                                              host.cancel = true;
                                          }),
                 ff::Cancelled);
    EXPECT_EQ(bands.size(), 1u);
}

// A cancel between chunks of a large write leaves the old file as it was and no temporary.
TEST(AtomicWrite, ACancelBetweenChunksLeavesNoFile) {
    ScratchDir dir;
    const std::string target = dir.file("big.bin");
    ff::test::write_bytes(target, "original");
    HelperHost host;
    const std::string bytes(3 * ff::nodes::kWriteChunk + 5, 'x');
    std::vector<size_t> written;
    EXPECT_THROW(ff::nodes::atomic_write_file(target, bytes, host.node(),
                                              [&](size_t done, size_t total) {
                                                  written.push_back(done);
                                                  EXPECT_EQ(total, bytes.size());
                                                  if (done > 0) host.cancel = true;
                                              }),
                 ff::Cancelled);
    EXPECT_EQ(written, (std::vector<size_t>{0, ff::nodes::kWriteChunk}));
    EXPECT_EQ(ff::test::read_bytes(target), "original");
    EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{"big.bin"});

    host.cancel = false;
    ff::nodes::atomic_write_file(target, bytes, host.node());
    EXPECT_EQ(ff::test::read_bytes(target), bytes);
}
