// The built `fieldflow` binary: exit codes, --help, nodes listing, check and run, interrupts.
#include "run_command.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fieldflow/versions.hpp>

#include <csignal>
#include <fcntl.h>
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
    // Every number from its own definition: project(), plugin.h and the engine's headers.
    using namespace versions;
    auto pair = [](uint32_t a, uint32_t b) { return std::to_string(a) + "." + std::to_string(b); };
    const std::string expected = std::string("fieldflow ") + kProgram + "\nplugin ABI " +
                                 pair(FF_ABI_MAJOR, FF_ABI_MINOR) + "\nmodel format " +
                                 pair(ff::engine::kModelFormatMajor, ff::engine::kModelFormatMinor) +
                                 "\ncheckpoint format " +
                                 pair(ff::engine::kCheckpointFormatMajor, ff::engine::kCheckpointFormatMinor) +
                                 "\nengine " + std::to_string(ff::engine::kVersion) + "\n";
    EXPECT_EQ(v.text, expected);
    EXPECT_TRUE(v.text.starts_with("fieldflow " FIELDFLOW_VERSION "\n")) << v.text;
    Output command = fieldflow("version");
    EXPECT_EQ(command.code, 0);
    EXPECT_EQ(command.text, expected);
}

TEST(Cli, SubcommandHelpIsWrappedForPeople) {
    for (const char* form : {"help run", "run --help"}) {
        Output h = fieldflow(form);
        EXPECT_EQ(h.code, 0) << form;
        EXPECT_TRUE(contains(h.text, "usage: fieldflow run GRAPH")) << h.text;
        EXPECT_TRUE(contains(h.text, "  -j, --jobs N ")) << h.text;
        EXPECT_TRUE(contains(h.text, "(default: auto)")) << h.text;
        EXPECT_FALSE(contains(h.text, "[ --")) << "raw Boost formatting: " << h.text;
        EXPECT_FALSE(contains(h.text, " arg ")) << h.text;
        EXPECT_FALSE(contains(h.text, "--graph")) << "the positional shows as an option: " << h.text;
        size_t start = 0;
        while (start < h.text.size()) {
            const size_t end = std::min(h.text.find('\n', start), h.text.size());
            EXPECT_LE(end - start, 80u) << h.text.substr(start, end - start);
            start = end + 1;
        }
    }
    EXPECT_EQ(fieldflow("help frobnicate").code, 2);
    Output general = fieldflow("help");
    EXPECT_EQ(general.code, 0);
    EXPECT_TRUE(contains(general.text, "usage: fieldflow COMMAND"));
}

TEST(Cli, RunWithoutAGraphNamesTheMissingGraph) {
    Output run = fieldflow("run");
    EXPECT_EQ(run.code, 2);
    EXPECT_TRUE(contains(run.text, "no graph file given")) << run.text;
    EXPECT_FALSE(contains(run.text, "'--graph'")) << run.text;
    Output check = fieldflow("check");
    EXPECT_EQ(check.code, 2);
    EXPECT_TRUE(contains(check.text, "no graph file given")) << check.text;
}

TEST(Cli, NoPluginExitsTwoAndListsTheFoldersSearched) {
    test::TempDir dir;
    // A copy of the program in a folder without plugins/ next to it.
    fs::copy_file(FF_FIELDFLOW_BIN, dir / "fieldflow");
    fs::permissions(dir / "fieldflow", fs::perms::owner_exec, fs::perm_options::add);
    const std::string nowhere = dir / "no-such-folder";
    ff::test::CommandResult r = ff::test::run_command("env FIELDFLOW_PLUGIN_PATH=" + nowhere + " " +
                                                      (dir / "fieldflow") + " nodes");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "no plugin was found")) << r.output;
    EXPECT_TRUE(contains(r.output, (dir.path() / "plugins").string() + " (missing)")) << r.output;
    EXPECT_TRUE(contains(r.output, nowhere + " (missing)")) << r.output;
}

TEST(Cli, JsonOutputs) {
    Output nodes = fieldflow("nodes --json " + kPlugin);
    EXPECT_EQ(nodes.code, 0) << nodes.text;
    EXPECT_TRUE(contains(nodes.text, "\"name\": \"Constant\"")) << nodes.text;
    EXPECT_TRUE(contains(nodes.text, "\"params\": [")) << nodes.text;
    Output one = fieldflow("nodes Constant --json " + kPlugin);
    EXPECT_EQ(one.code, 0);
    EXPECT_EQ(one.text.front(), '{');
    EXPECT_TRUE(contains(one.text, "\"choices\": [")) << one.text;

    test::TempDir dir;
    test::write_text(dir / "good.yaml", "fieldflow: 1\nnodes:\n  c: {op: Constant}\n");
    test::write_text(dir / "bad.yaml", "fieldflow: 1\nnodes:\n  c: {op: Constnat}\n");
    Output check = fieldflow("check --json " + (dir / "good.yaml") + " " + (dir / "bad.yaml") + " " + kPlugin);
    EXPECT_EQ(check.code, 2) << check.text;
    EXPECT_TRUE(contains(check.text, "\"ok\": false")) << check.text;
    EXPECT_TRUE(contains(check.text, "\"line\": 3")) << check.text;
    EXPECT_TRUE(contains(check.text, "\"column\": 11")) << check.text;
    EXPECT_TRUE(contains(check.text, "\"nodes\": 1")) << check.text;

    Output run = fieldflow("run --json -q --no-cache " + (dir / "good.yaml") + " " + kPlugin);
    EXPECT_EQ(run.code, 0) << run.text;
    EXPECT_TRUE(contains(run.text, "\"status\": \"ran\"")) << run.text;
    EXPECT_TRUE(contains(run.text, "\"exit_code\": 0")) << run.text;
}

// Cache entry names as fieldflow writes them: keys are 32 hex digits.
const std::string kKeyA = "ab0123456789abcdef0123456789abcd", kKeyB = "0123456789abcdef0123456789abcdef";

// A cache folder with every kind of entry, two of them abandoned 10 days ago, and a file of the
// user's beside them that no action may touch. Marked as a cache folder (as fieldflow marks the
// folders it writes) when `marked`.
void fill_cache(const fs::path& dir, bool marked = true) {
    const auto days_ago = [](const fs::path& p, int days) {
        fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(24 * days));
    };
    for (const std::string& sub : {std::string("v1/ab"), "state/" + kKeyA, "state/" + kKeyB, std::string("spirv")})
        fs::create_directories(dir / sub);
    test::write_text(dir / ("v1/ab/" + kKeyA + ".ffc"), std::string(100, 'r'));
    test::write_text(dir / ("state/" + kKeyA + "/checkpoint.ffckpt"), std::string(50, 's'));
    days_ago(dir / ("state/" + kKeyA + "/checkpoint.ffckpt"), 10);
    test::write_text(dir / ("state/" + kKeyB + "/checkpoint.ffckpt"), std::string(20, 's'));
    test::write_text(dir / ("spirv/render.comp-" + kKeyA + ".spv"), std::string(30, 'k'));
    test::write_text(dir / ("spirv/render.comp-" + kKeyA + ".spv.tmp.1.2"), std::string(5, 'k'));
    days_ago(dir / ("spirv/render.comp-" + kKeyA + ".spv.tmp.1.2"), 10);
    test::write_text(dir / "keep.txt", "the user's");
    if (marked)
        test::write_text(dir / "CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                               "# This folder is fieldflow's cache.\n");
}

TEST(Cli, CacheListsSizesPrunesAndClears) {
    test::TempDir dir;
    fill_cache(dir.path());
    const std::string c = " --cache " + dir.path().string();

    Output size = fieldflow("cache size --json" + c);
    EXPECT_EQ(size.code, 0) << size.text;
    const nlohmann::json sizes = nlohmann::json::parse(size.text);
    ASSERT_EQ(sizes["kinds"].size(), 3u) << size.text;
    EXPECT_EQ(sizes["kinds"][0]["kind"], "results");
    EXPECT_EQ(sizes["kinds"][0]["bytes"], 100);
    EXPECT_EQ(sizes["kinds"][1]["bytes"], 70);
    EXPECT_EQ(sizes["kinds"][1]["entries"], 2);
    EXPECT_EQ(sizes["kinds"][2]["bytes"], 35);

    Output list = fieldflow("cache" + c); // list is the default
    EXPECT_EQ(list.code, 0) << list.text;
    EXPECT_TRUE(contains(list.text, kKeyA + "  50 B, last written 10 days ago")) << list.text;
    EXPECT_TRUE(contains(list.text, "total")) << list.text;

    Output prune = fieldflow("cache prune --older-than 1" + c);
    EXPECT_EQ(prune.code, 0) << prune.text;
    EXPECT_TRUE(contains(prune.text, "pruned 2 abandoned entries")) << prune.text;
    EXPECT_FALSE(fs::exists(dir.path() / "state" / kKeyA));
    EXPECT_FALSE(fs::exists(dir.path() / ("spirv/render.comp-" + kKeyA + ".spv.tmp.1.2")));
    EXPECT_TRUE(fs::exists(dir.path() / "state" / kKeyB / "checkpoint.ffckpt"));
    EXPECT_TRUE(fs::exists(dir.path() / ("spirv/render.comp-" + kKeyA + ".spv")));

    Output kernels = fieldflow("cache clear kernels" + c);
    EXPECT_EQ(kernels.code, 0) << kernels.text;
    EXPECT_FALSE(fs::exists(dir.path() / "spirv"));
    EXPECT_TRUE(fs::exists(dir.path() / ("v1/ab/" + kKeyA + ".ffc")));

    Output all = fieldflow("cache clear" + c);
    EXPECT_EQ(all.code, 0) << all.text;
    EXPECT_FALSE(fs::exists(dir.path() / "v1"));
    EXPECT_FALSE(fs::exists(dir.path() / "state"));
    EXPECT_EQ(test::read_text(dir.path() / "keep.txt"), "the user's");

    EXPECT_EQ(fieldflow("cache clear everything" + c).code, 2);
    EXPECT_EQ(fieldflow("cache tidy" + c).code, 2);
    EXPECT_EQ(fieldflow("cache size state" + c).code, 2);
}

// The cache folder carries a mark of its own (CACHEDIR.TAG, written when fieldflow first uses the
// folder); `cache clear` and `prune` refuse a folder without it, and in a marked one remove only
// what has the shape of a cache entry: a user's documents under v1/, state/ or spirv/ stay.
TEST(Cli, CacheClearTouchesOnlyItsOwnEntries) {
    test::TempDir dir;
    const fs::path unmarked = dir / "documents";
    fill_cache(unmarked, false);
    test::write_text(unmarked / "v1" / "letter.txt", "my letter");
    std::map<std::string, std::string> before;
    for (const auto& e : fs::recursive_directory_iterator(unmarked))
        before[e.path().string()] = e.is_directory() ? "<dir>" : test::read_text(e.path());
    for (const char* action : {"clear", "prune --older-than 0"}) {
        Output r = fieldflow(std::string("cache ") + action + " --cache " + unmarked.string());
        EXPECT_EQ(r.code, 2) << action << ": " << r.text;
        EXPECT_TRUE(contains(r.text, "is not marked as a fieldflow cache folder")) << r.text;
    }
    std::map<std::string, std::string> after;
    for (const auto& e : fs::recursive_directory_iterator(unmarked))
        after[e.path().string()] = e.is_directory() ? "<dir>" : test::read_text(e.path());
    EXPECT_EQ(after, before);

    // A run marks the folder it caches in; the user's files put there later survive a clear.
    const fs::path cache = dir / "cache";
    test::write_text(dir / "g.yaml", "fieldflow: 1\nnodes:\n  c: {op: Constant}\n");
    Output run = fieldflow("run -q " + (dir / "g.yaml") + " --cache " + cache.string() + " " + kPlugin);
    ASSERT_EQ(run.code, 0) << run.text;
    EXPECT_TRUE(contains(test::read_text(cache / "CACHEDIR.TAG"), "fieldflow")) << "no cache mark";
    fill_cache(cache);
    for (const char* sub : {"v1/notes.txt", "v1/ab/letter.txt", "state/mine.txt", "spirv/photo.jpg"})
        test::write_text(cache / sub, std::string("mine: ") + sub);
    Output list = fieldflow("cache size --json --cache " + cache.string());
    EXPECT_EQ(nlohmann::json::parse(list.text)["kinds"][0]["entries"], 1) << list.text;
    Output clear = fieldflow("cache clear --cache " + cache.string());
    EXPECT_EQ(clear.code, 0) << clear.text;
    EXPECT_FALSE(fs::exists(cache / ("v1/ab/" + kKeyA + ".ffc")));
    EXPECT_FALSE(fs::exists(cache / "state" / kKeyB));
    EXPECT_FALSE(fs::exists(cache / ("spirv/render.comp-" + kKeyA + ".spv")));
    for (const char* sub : {"v1/notes.txt", "v1/ab/letter.txt", "state/mine.txt", "spirv/photo.jpg"})
        EXPECT_EQ(test::read_text(cache / sub), std::string("mine: ") + sub) << sub;
    EXPECT_EQ(test::read_text(cache / "keep.txt"), "the user's");
    EXPECT_TRUE(fs::exists(cache / "CACHEDIR.TAG"));
}

// What bash offers for the words typed so far, from the generated completion script.
std::string bash_completes(const fs::path& script, const std::string& words, int word) {
    return ff::test::run_command("bash -c 'source " + script.string() + "; COMP_WORDS=(" + words +
                                 "); COMP_CWORD=" + std::to_string(word) +
                                 "; _fieldflow; printf \"%s\\n\" \"${COMPREPLY[@]}\"'")
        .output;
}

TEST(Cli, CompletionAndManPageComeFromTheOptionTables) {
    test::TempDir dir;
    Output bash = fieldflow("completion bash");
    ASSERT_EQ(bash.code, 0) << bash.text;
    test::write_text(dir / "fieldflow.bash", bash.text);
    EXPECT_EQ(bash_completes(dir.path() / "fieldflow.bash", "fieldflow ca", 1), "cache\n");
    EXPECT_TRUE(contains(bash_completes(dir.path() / "fieldflow.bash", "fieldflow run --jo", 2), "--jobs\n"));
    EXPECT_TRUE(contains(bash_completes(dir.path() / "fieldflow.bash", "fieldflow cache --old", 2), "--older-than\n"));
    EXPECT_EQ(bash_completes(dir.path() / "fieldflow.bash", "fieldflow help chec", 2), "check\n");

    Output zsh = fieldflow("completion zsh");
    EXPECT_EQ(zsh.code, 0);
    EXPECT_EQ(zsh.text.rfind("#compdef fieldflow\n", 0), 0u) << zsh.text;
    EXPECT_TRUE(contains(zsh.text, "'(-j --jobs)'{-j,--jobs}'[nodes run at the same time, 1 to 1024")) << zsh.text;

    Output man = fieldflow("man");
    EXPECT_EQ(man.code, 0);
    EXPECT_EQ(man.text.rfind(".TH FIELDFLOW 1", 0), 0u);
    EXPECT_TRUE(contains(man.text, ".SS run\n")) << man.text;
    EXPECT_TRUE(contains(man.text, "\\fB\\-j, \\-\\-jobs\\fR \\fIN\\fR")) << man.text;

    EXPECT_EQ(fieldflow("completion fish").code, 2);
}

TEST(Cli, CheckTakesSeveralGraphs) {
    test::TempDir dir;
    test::write_text(dir / "a.yaml", "fieldflow: 1\nnodes:\n  c: {op: Constant}\n");
    test::write_text(dir / "b.yaml", "fieldflow: 1\nnodes:\n  c: {op: Constant}\n  d: {op: Constant}\n");
    Output both = fieldflow("check " + (dir / "a.yaml") + " " + (dir / "b.yaml") + " " + kPlugin);
    EXPECT_EQ(both.code, 0) << both.text;
    EXPECT_EQ(both.text, dir / "a.yaml" + ": ok (1 node)\n" + dir / "b.yaml" + ": ok (2 nodes)\n" +
                             "2 of 2 graphs valid\n");
    Output one_bad = fieldflow("check " + (dir / "a.yaml") + " " + (dir / "missing.yaml") + " " + kPlugin);
    EXPECT_EQ(one_bad.code, 2) << one_bad.text;
    EXPECT_TRUE(contains(one_bad.text, "1 of 2 graphs valid")) << one_bad.text;
}

TEST(Cli, DryRunListsThePlanAndRunsNothing) {
    test::TempDir dir;
    test::write_text(dir / "g.yaml", "fieldflow: 1\nvars: {out: ~}\nnodes:\n"
                                     "  c: {op: Constant, params: {value: 0.5}}\n"
                                     "  w: {op: WriteNumber, inputs: {image: c}, params: {path: '${out}'}}\n");
    Output run = fieldflow("run --dry-run " + (dir / "g.yaml") + " --set out=" + (dir / "mean.txt") + " " + kPlugin);
    EXPECT_EQ(run.code, 0) << run.text;
    EXPECT_TRUE(contains(run.text, "2 nodes would run")) << run.text;
    EXPECT_TRUE(contains(run.text, "WriteNumber <- c")) << run.text;
    EXPECT_FALSE(fs::exists(dir / "mean.txt"));
}

TEST(Cli, UnquotedVariableInAFlowMappingGetsAQuotingHint) {
    test::TempDir dir;
    test::write_text(dir / "g.yaml", "fieldflow: 1\nvars: {v: 2}\nnodes:\n"
                                     "  c: {op: Constant, params: {value: ${v}}}\n");
    Output check = fieldflow("check " + (dir / "g.yaml") + " " + kPlugin);
    EXPECT_EQ(check.code, 2);
    EXPECT_TRUE(contains(check.text, "must be quoted")) << check.text;
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
    EXPECT_TRUE(contains(list.text, "  Constant             test       An image filled with one value.\n"))
        << list.text;
    // Which file each plugin came from.
    EXPECT_TRUE(contains(list.text, "\nplugins:\n")) << list.text;
    EXPECT_TRUE(contains(list.text, "\n  test 1.0.0           " FF_TEST_PLUGIN "\n")) << list.text;
    Output one = fieldflow("nodes Constant " + kPlugin);
    EXPECT_EQ(one.code, 0);
    EXPECT_TRUE(contains(one.text, "\nplugin file: " FF_TEST_PLUGIN "\n")) << one.text;
    EXPECT_TRUE(contains(one.text, "  width            int [1, 4096], default 4\n")) << one.text;
    EXPECT_TRUE(contains(one.text, "  mode             enum flat|ramp, default flat\n"));
    EXPECT_TRUE(contains(one.text, "  image            image    the image\n"));
    // Params grouped by when they apply, or only those that apply to given values.
    EXPECT_TRUE(contains(one.text, "\nparams when mode=ramp:\n  ramp_start       float [-1000, 1000], default 0\n"))
        << one.text;
    Output flat = fieldflow("nodes Constant mode=flat " + kPlugin);
    EXPECT_EQ(flat.code, 0) << flat.text;
    EXPECT_TRUE(contains(flat.text, "\nparams that apply with mode=flat:\n")) << flat.text;
    EXPECT_FALSE(contains(flat.text, "\n  ramp_start ")) << flat.text;
    EXPECT_TRUE(contains(flat.text, "(1 more that do not apply here: `fieldflow nodes Constant` lists all)"));
    EXPECT_TRUE(contains(fieldflow("nodes Constant mode=ramp " + kPlugin).text, "  ramp_start "));
    Output typo = fieldflow("nodes Constant mood=flat " + kPlugin);
    EXPECT_EQ(typo.code, 2);
    EXPECT_TRUE(contains(typo.text, "'mood=flat' is not PARAM=VALUE for a param of Constant (did you mean 'mode'?)"))
        << typo.text;
    Output bad_value = fieldflow("nodes Constant mode=wavy " + kPlugin);
    EXPECT_EQ(bad_value.code, 2);
    EXPECT_TRUE(contains(bad_value.text, "param 'mode' must be one of flat, ramp; got 'wavy'")) << bad_value.text;
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

TEST(Cli, PrepareMisuseIsAWarningAndItsFailureNotTheNodes) {
    test::TempDir dir;
    test::write_text(dir / "g.yaml", "fieldflow: 1\nnodes:\n"
                                     "  w: {op: Warm, params: {tag: cli-1, fail_prepare: true}}\n");
    Output run = fieldflow("run " + (dir / "g.yaml") + " --device cpu " + kPlugin);
    EXPECT_EQ(run.code, 0) << run.text;
    EXPECT_TRUE(contains(run.text, "[w] warning: plugin API misuse: output_blob: outputs cannot be written in "
                                   "validate() or prepare()")) << run.text;
    EXPECT_TRUE(contains(run.text, "1 nodes: 1 ran")) << run.text;
    Output check = fieldflow("check " + (dir / "g.yaml") + " " + kPlugin); // no prepare there
    EXPECT_EQ(check.code, 0) << check.text;
    EXPECT_FALSE(contains(check.text, "misuse")) << check.text;
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
                          std::chrono::steady_clock::duration* signal_to_exit = nullptr,
                          const std::string& sign = "ran       c") {
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
        if (!signalled && contains(text, sign)) {
            ::kill(pid, sig);
            signalled = true;
            signalled_at = std::chrono::steady_clock::now();
        }
    }
    ::close(log[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (signal_to_exit) *signal_to_exit = std::chrono::steady_clock::now() - signalled_at;
    EXPECT_TRUE(signalled) << "the run ended without logging '" << sign << "':\n" << text;
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

// Two runs writing one folder would mix their files: the second is refused, naming the first,
// and writes nothing; the lock goes with the first run.
TEST(Cli, SecondRunIntoAFolderIsRefusedNamingTheFirst) {
    test::TempDir dir;
    const fs::path out = dir / "out";
    const std::string graph = "fieldflow: 1\nvars: {ms: 0}\nnodes:\n"
                              "  c: {op: Constant}\n"
                              "  slow: {op: Sleep, inputs: {image: c}, params: {ms: \"${ms}\"}}\n"
                              "  save: {op: WriteNumber, inputs: {image: slow}, params: {path: \"" +
                              (out / "mean.txt").string() + "\"}}\n";
    test::write_text(dir / "g.yaml", graph);
    fs::create_directories(out);
    const fs::path log = dir / "first.log";
    const std::string plugin = FF_TEST_PLUGIN, g = dir / "g.yaml";
    const pid_t first = ::fork();
    if (first == 0) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, STDERR_FILENO);
        ::execl(FF_FIELDFLOW_BIN, FF_FIELDFLOW_BIN, "run", "--no-cache", g.c_str(), "--set", "ms=60000",
                "--plugin", plugin.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The sign that the first run is under way: its log line for the node before the slow one.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!contains(test::read_text(log), "ran       c") && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const Output second = fieldflow("run -q --no-cache " + g + " " + kPlugin);
    ::kill(first, SIGTERM);
    int status = 0;
    ::waitpid(first, &status, 0);
    EXPECT_EQ(second.code, 2) << second.text;
    EXPECT_TRUE(contains(second.text, "another fieldflow run is writing to '" + out.string() + "'")) << second.text;
    EXPECT_TRUE(contains(second.text, "pid " + std::to_string(first) + ": ")) << second.text;
    EXPECT_FALSE(fs::exists(out / "mean.txt")) << "the second run wrote into the first one's folder";
    EXPECT_FALSE(fs::exists(out / ".fieldflow-lock")) << "the lock is left behind";
    const Output third = fieldflow("run -q --no-cache " + g + " " + kPlugin); // the lock went with the first
    EXPECT_EQ(third.code, 0) << third.text;
    EXPECT_TRUE(fs::exists(out / "mean.txt"));
}

// A node that leaves a call it cannot stop behind when cancelled (an image encode, a GPU render)
// must not hold up the exit, even when an exit handler would wait for that call (as the Vulkan
// driver's does): the interrupted process ends without running them.
TEST(Cli, InterruptDoesNotWaitForAnAbandonedCall) {
    test::TempDir dir;
    test::write_text(dir / "abandon.yaml", "fieldflow: 1\nnodes:\n"
                                           "  c: {op: Constant}\n"
                                           "  a: {op: Abandon, inputs: {image: c}, params: {ms: 60000}}\n");
    std::chrono::steady_clock::duration took{};
    EXPECT_EQ(interrupted_exit_code(SIGTERM, dir.path() / "abandon.yaml", &took, "[a] call started"), 143);
    EXPECT_LT(took, std::chrono::seconds(30)); // the abandoned call runs 60 s
}

TEST(Cli, InterruptNamesTheCheckpointAndTheCommandThatResumes) {
    test::TempDir dir;
    const fs::path cache = dir.path() / "cache";
    test::write_text(dir / "g.yaml", "fieldflow: 1\nnodes:\n  c: {op: Constant}\n"
                                     "  r: {op: Resumable, inputs: {image: c}, params: {sleep_ms: 60000}}\n");
    const fs::path log = dir.path() / "log.txt";
    const std::string plugin = FF_TEST_PLUGIN;
    pid_t pid = ::fork();
    if (pid == 0) {
        std::freopen(log.c_str(), "w", stderr);
        ::execl(FF_FIELDFLOW_BIN, FF_FIELDFLOW_BIN, "run", (dir / "g.yaml").c_str(), "--cache",
                cache.c_str(), "--plugin", plugin.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The sign: the node has written its count into its state folder.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto count_file = [&] {
        std::error_code ec;
        if (fs::is_directory(cache / "state", ec))
            for (const auto& entry : fs::directory_iterator(cache / "state", ec))
                if (fs::exists(entry.path() / "count")) return true;
        return false;
    };
    while (!count_file() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(count_file()) << test::read_text(log);
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 130);
    const std::string text = test::read_text(log);
    EXPECT_TRUE(contains(text, "node 'r': checkpoint kept in " + (cache / "state").string() + "/")) << text;
    EXPECT_TRUE(contains(text, std::string("; to resume, run: ") + FF_FIELDFLOW_BIN + " run " +
                                   (dir / "g.yaml") + " --cache " + cache.string() + " --plugin " + plugin))
        << text;
}

} // namespace
} // namespace fieldflow::host
