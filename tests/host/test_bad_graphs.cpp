// tests/host/graphs/bad/: one malformed graph per error kind, each next to NAME.expected holding
// the exact messages `FILE:LINE:COL: error: ...` (FILE is the file's name).
#include "test_support.hpp"

#include <algorithm>
#include <set>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

const fs::path kBadDir = fs::path(FF_HOST_TEST_DIR) / "graphs" / "bad";

std::vector<fs::path> bad_graphs() {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(kBadDir))
        if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(BadGraphs, EveryErrorKindHasAFile) {
    std::set<std::string> have;
    for (const fs::path& f : bad_graphs()) have.insert(f.stem().string());
    for (const char* kind :
         {"yaml_syntax", "unknown_op", "unknown_param", "missing_param", "wrong_type",
          "out_of_range", "nan", "bad_enum", "unknown_input_node", "unknown_port",
          "unknown_input_port", "ambiguous_port", "type_mismatch", "cycle", "duplicate_node",
          "unset_variable", "unknown_variable", "format_version", "missing_nodes",
          "missing_input", "validate_callback", "several_errors", "overwrites_input",
          "two_writers"})
        EXPECT_TRUE(have.count(kind)) << "missing tests/host/graphs/bad/" << kind << ".yaml";
}

TEST(BadGraphs, EachReportsExactlyItsExpectedMessages) {
    OpRegistry registry = test::test_registry();
    size_t checked = 0;
    for (const fs::path& file : bad_graphs()) {
        SCOPED_TRACE(file.filename().string());
        const fs::path expected_file = fs::path(file).replace_extension(".expected");
        if (!fs::exists(expected_file)) {
            ADD_FAILURE() << "no " << expected_file;
            continue;
        }
        Diagnostics diags(file.filename().string());
        auto graph = load_graph(file.string(), {}, registry, diags);
        EXPECT_FALSE(graph.has_value());
        EXPECT_EQ(diags.format(), test::read_text(expected_file));
        ++checked;
    }
    EXPECT_GE(checked, 22u);
}

TEST(BadGraphs, SeveralErrorsAreAllReported) {
    OpRegistry registry = test::test_registry();
    Diagnostics diags("several_errors.yaml");
    load_graph((kBadDir / "several_errors.yaml").string(), {}, registry, diags);
    EXPECT_EQ(diags.size(), 7u);
}

} // namespace
} // namespace fieldflow::host
