// Shared node helpers: the feature-grid size rule and atomic file writes.
#include "common/atomic_write.hpp"
#include "common/grid_size.hpp"
#include "test_support.hpp"

#include <fieldflow/node.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;
using ff::nodes::GridSize;
using ff::test::ScratchDir;

TEST(GridSize, AutoIsAQuarterRoundedDown) {
    EXPECT_EQ(ff::nodes::auto_grid_size(800, 550), (GridSize{200, 137})); // the seed's lake photo
    EXPECT_EQ(ff::nodes::auto_grid_size(751, 563), (GridSize{187, 140})); // leuvenA.jpg
    EXPECT_EQ(ff::nodes::auto_grid_size(800, 640), (GridSize{200, 160})); // graf1.png
    EXPECT_EQ(ff::nodes::auto_grid_size(7, 3), (GridSize{2, 2}));        // never below 2x2
    EXPECT_EQ(ff::nodes::auto_grid_size(12, 9), (GridSize{3, 2}));
    EXPECT_EQ(ff::nodes::resolve_grid_size("auto", 751, 563), (GridSize{187, 140}));
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
