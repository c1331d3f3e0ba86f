// The built `fieldflow` binary: exit codes, --help, nodes listing, check and run, interrupts.
#include "run_command.hpp"
#include "test_support.hpp"

#include <csignal>
#include <cstdio>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

struct Output {
    int code = -1;
    std::string text; // stdout and stderr together
};

// Runs fieldflow with `args` (a shell-quoted string). Plugins come only from --plugin: the
// environment's FIELDFLOW_PLUGIN_PATH is cleared.
Output fieldflow(const std::string& args) {
    const std::string command = "env -u FIELDFLOW_PLUGIN_PATH FIELDFLOW_CACHE_DIR=" +
                                (fs::temp_directory_path() / "ff-host-cli-cache").string() + " " +
                                FF_FIELDFLOW_BIN + " " + args;
    Output out;
    ff::test::CommandResult r = ff::test::run_command(command);
    out.code = r.exit_code;
    out.text = std::move(r.output);
    return out;
}

const std::string kPlugin = std::string("--plugin ") + FF_TEST_PLUGIN;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(Cli, HelpAndVersion) {
    Output help = fieldflow("--help");
    EXPECT_EQ(help.code, 0);
    for (const char* command : {"run", "check", "nodes"}) EXPECT_TRUE(contains(help.text, command));
    for (const char* command : {"run", "check", "nodes"}) {
        Output h = fieldflow(std::string(command) + " --help");
        EXPECT_EQ(h.code, 0) << command;
        EXPECT_TRUE(contains(h.text, std::string("usage: fieldflow ") + command)) << h.text;
    }
    EXPECT_TRUE(contains(fieldflow("run --help").text, "--no-cache"));
    Output v = fieldflow("--version");
    EXPECT_EQ(v.code, 0);
    EXPECT_EQ(v.text, "fieldflow 0.1.0 (plugin ABI 1.2)\n");
}

TEST(Cli, UsageErrorsExitTwo) {
    EXPECT_EQ(fieldflow("").code, 2);
    EXPECT_EQ(fieldflow("frobnicate").code, 2);
    EXPECT_EQ(fieldflow("run").code, 2); // no graph
    EXPECT_EQ(fieldflow("run g.yaml --bogus").code, 2);
    Output device = fieldflow("run g.yaml --device gpu " + kPlugin);
    EXPECT_EQ(device.code, 2);
    EXPECT_TRUE(contains(device.text, "--device 'gpu': expected auto, cpu or a device number"));
    Output set = fieldflow("check g.yaml --set novalue");
    EXPECT_EQ(set.code, 2);
    EXPECT_TRUE(contains(set.text, "--set 'novalue': expected NAME=VALUE")) << set.text;
    EXPECT_EQ(fieldflow("run g.yaml --cache /tmp/x --no-cache").code, 2);
}

TEST(Cli, NodesListsAndDescribesOps) {
    Output list = fieldflow("nodes " + kPlugin);
    EXPECT_EQ(list.code, 0) << list.text;
    EXPECT_TRUE(contains(list.text, "test:\n"));
    EXPECT_TRUE(contains(list.text, "  Constant             An image filled with one value.\n"));
    Output one = fieldflow("nodes Constant " + kPlugin);
    EXPECT_EQ(one.code, 0);
    EXPECT_TRUE(contains(one.text, "  width            int [1, 4096], default 4\n")) << one.text;
    EXPECT_TRUE(contains(one.text, "  mode             enum flat|ramp, default flat\n"));
    EXPECT_TRUE(contains(one.text, "  image            image    the image\n"));
    Output fit = fieldflow("nodes Fit " + kPlugin);
    EXPECT_TRUE(contains(fit.text, "  steps            int [1, 1000000], required\n")) << fit.text;
    EXPECT_TRUE(contains(fit.text, "caching: results kept in the disk cache"));
    Output unknown = fieldflow("nodes Constnat " + kPlugin);
    EXPECT_EQ(unknown.code, 2);
    EXPECT_TRUE(contains(unknown.text, "unknown op 'Constnat' (did you mean 'Constant'?)"));
}

TEST(Cli, BadPluginIsAnError) {
    Output out = fieldflow(std::string("nodes --plugin ") + FF_BAD_ABI_MAJOR_PLUGIN);
    EXPECT_EQ(out.code, 2);
    EXPECT_TRUE(contains(out.text, "ABI 2.0 is not supported")) << out.text;
}

// `fieldflow check` on a graph of tests/host/graphs/bad: exit 2, and its expected messages (which
// name the graph by its file name) with the path as given, then the count line.
void expect_check_fails_as_expected(const std::string& name, const std::string& count_line) {
    const fs::path bad = fs::path(FF_HOST_TEST_DIR) / "graphs" / "bad" / (name + ".yaml");
    Output out = fieldflow("check " + bad.string() + " " + kPlugin);
    EXPECT_EQ(out.code, 2) << name;
    std::string with_path = test::read_text(fs::path(bad).replace_extension(".expected"));
    const std::string file_name = name + ".yaml:";
    for (size_t at = 0; (at = with_path.find(file_name, at)) != std::string::npos;) {
        if (at == 0 || with_path[at - 1] == '\n' || with_path[at - 1] == '(') {
            with_path.replace(at, file_name.size(), bad.string() + ":");
            at += bad.string().size();
        } else {
            at += file_name.size();
        }
    }
    EXPECT_EQ(out.text, with_path + count_line) << name;
}

TEST(Cli, CheckReportsEveryErrorWithThePathAsGiven) {
    expect_check_fails_as_expected("several_errors", "7 errors\n");
}

// A graph that would overwrite its own input, or write one file from two nodes, fails `check`
// (exit 2) at the writing param's FILE:LINE:COL, naming the other node and its position.
TEST(Cli, CheckRefusesOverwritingTheInputAndTwoWritersOfOneFile) {
    expect_check_fails_as_expected("overwrites_input", "1 error\n");
    expect_check_fails_as_expected("two_writers", "1 error\n");
}

TEST(Cli, CheckAndRunAGoodGraph) {
    test::TempDir dir;
    test::write_text(dir / "g.yaml", "fieldflow: 1\nvars: {out: ~}\nnodes:\n"
                                     "  c: {op: Constant, params: {value: 0.5}}\n"
                                     "  w: {op: WriteNumber, inputs: {image: c}, params: {path: '${out}'}}\n");
    Output check = fieldflow("check " + (dir / "g.yaml") + " --set out=x " + kPlugin);
    EXPECT_EQ(check.code, 0) << check.text;
    EXPECT_EQ(check.text, dir / "g.yaml" + ": ok (2 nodes)\n");
    Output unset = fieldflow("check " + (dir / "g.yaml") + " " + kPlugin);
    EXPECT_EQ(unset.code, 2);
    Output run = fieldflow("run " + (dir / "g.yaml") + " --set out=" + (dir / "mean.txt") + " " + kPlugin);
    EXPECT_EQ(run.code, 0) << run.text;
    EXPECT_EQ(test::read_text(dir / "mean.txt"), "0.5\n");
    EXPECT_TRUE(contains(run.text, "ran       c")) << run.text;
    EXPECT_TRUE(contains(run.text, "2 nodes: 2 ran, 0 cached, 0 failed, 0 skipped"));
    Output quiet = fieldflow("run -q " + (dir / "g.yaml") + " --set out=" + (dir / "mean.txt") + " " + kPlugin);
    EXPECT_EQ(quiet.code, 0);
    EXPECT_EQ(quiet.text, "");
}

TEST(Cli, FailedNodeExitsOne) {
    test::TempDir dir;
    test::write_text(dir / "g.yaml", "fieldflow: 1\nnodes:\n"
                                     "  f: {op: Fail, params: {message: no luck}}\n"
                                     "  after: {op: Stats, inputs: {image: f}}\n");
    Output run = fieldflow("run --no-cache " + (dir / "g.yaml") + " " + kPlugin);
    EXPECT_EQ(run.code, 1) << run.text;
    EXPECT_TRUE(contains(run.text, "error: node 'f' failed: no luck")) << run.text;
    EXPECT_TRUE(contains(run.text, "skipped   after")) << run.text;
    EXPECT_TRUE(contains(run.text, "input 'f' failed"));
}

// Starts `fieldflow run` on a slow graph, sends `sig` once the log says the slow node's input is
// done (so the run is under way: no fixed wait that a loaded machine could outlast), returns the
// exit code. The log is read to its end, so the process never meets a closed pipe.
int interrupted_exit_code(int sig, const fs::path& graph,
                          std::chrono::steady_clock::duration* signal_to_exit = nullptr) {
    const std::string plugin = FF_TEST_PLUGIN;
    int log[2];
    if (::pipe(log) != 0) return -2;
    pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(log[1], STDERR_FILENO);
        ::close(log[0]);
        ::close(log[1]);
        ::execl(FF_FIELDFLOW_BIN, FF_FIELDFLOW_BIN, "run", "--no-cache", graph.c_str(),
                "--plugin", plugin.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(log[1]);
    std::string text;
    bool signalled = false;
    auto signalled_at = std::chrono::steady_clock::now();
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(log[0], buffer, sizeof buffer)) > 0) {
        text.append(buffer, size_t(n));
        if (!signalled && contains(text, "ran       c")) {
            ::kill(pid, sig);
            signalled = true;
            signalled_at = std::chrono::steady_clock::now();
        }
    }
    ::close(log[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (signal_to_exit) *signal_to_exit = std::chrono::steady_clock::now() - signalled_at;
    EXPECT_TRUE(signalled) << "the run ended without logging its first node:\n" << text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Cli, InterruptExitCodes) {
    test::TempDir dir;
    test::write_text(dir / "slow.yaml", "fieldflow: 1\nnodes:\n"
                                        "  c: {op: Constant}\n"
                                        "  slow: {op: Sleep, inputs: {image: c}, params: {ms: 60000}}\n");
    // Timed from the signal, not from the start (a loaded machine, or ASan, starts slowly): the
    // run must end well before the 60 s node would have.
    std::chrono::steady_clock::duration took{};
    EXPECT_EQ(interrupted_exit_code(SIGINT, dir.path() / "slow.yaml", &took), 130);
    EXPECT_LT(took, std::chrono::seconds(30));
    EXPECT_EQ(interrupted_exit_code(SIGTERM, dir.path() / "slow.yaml", &took), 143);
    EXPECT_LT(took, std::chrono::seconds(30));
}

} // namespace
} // namespace fieldflow::host
