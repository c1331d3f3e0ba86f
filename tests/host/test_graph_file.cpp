// The graph file reader: structure, positions, duplicates, JSON.
#include <fieldflow/host/graph_file.hpp>

#include <gtest/gtest.h>

namespace fieldflow::host {
namespace {

GraphAst parse(const std::string& text, Diagnostics& diags) { return parse_graph_text(text, diags); }

TEST(GraphFile, ReadsNodesParamsAndInputsWithPositions) {
    Diagnostics diags("g.yaml");
    GraphAst g = parse("fieldflow: 1\n"
                       "description: two nodes\n"
                       "nodes:\n"
                       "  image:\n"
                       "    op: Constant\n"
                       "    params: {width: 8, size: [1, 2]}\n"
                       "  sum:\n"
                       "    op: Add\n"
                       "    inputs:\n"
                       "      a: image\n"
                       "      b: split.left\n",
                       diags);
    ASSERT_TRUE(diags.empty()) << diags.format();
    EXPECT_EQ(g.version, 1);
    EXPECT_EQ(g.description, "two nodes");
    ASSERT_EQ(g.nodes.size(), 2u);
    const NodeAst& image = g.nodes[0];
    EXPECT_EQ(image.name, "image");
    EXPECT_EQ(image.name_pos, (SourcePos{4, 3}));
    EXPECT_EQ(image.op, "Constant");
    EXPECT_EQ(image.op_pos, (SourcePos{5, 9}));
    ASSERT_EQ(image.params.size(), 2u);
    EXPECT_EQ(image.params[0].name, "width");
    EXPECT_EQ(image.params[0].scalar.text, "8");
    EXPECT_EQ(image.params[0].value_pos, (SourcePos{6, 21}));
    EXPECT_TRUE(image.params[1].is_sequence);
    ASSERT_EQ(image.params[1].items.size(), 2u);
    EXPECT_EQ(image.params[1].items[1].text, "2");
    EXPECT_EQ(image.params[1].items[1].pos, (SourcePos{6, 34}));
    const NodeAst& sum = g.nodes[1];
    ASSERT_EQ(sum.inputs.size(), 2u);
    EXPECT_EQ(sum.inputs[0].port, "a");
    EXPECT_EQ(sum.inputs[0].ref, "image");
    EXPECT_EQ(sum.inputs[1].ref, "split.left");
    EXPECT_EQ(sum.inputs[1].ref_pos, (SourcePos{11, 10}));
}

TEST(GraphFile, JsonIsYamlToo) {
    Diagnostics diags("g.json");
    GraphAst g = parse(R"({"fieldflow": 1, "vars": {"v": 2},
 "nodes": {"c": {"op": "Constant", "params": {"value": "${v}"}}}})",
                       diags);
    ASSERT_TRUE(diags.empty()) << diags.format();
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op, "Constant");
    EXPECT_EQ(g.vars.at(0).default_value, "2");
    EXPECT_EQ(g.nodes[0].params[0].scalar.text, "${v}");
    EXPECT_EQ(g.nodes[0].params[0].value_pos, (SourcePos{2, 56}));
}

TEST(GraphFile, NullVariableIsRequired) {
    Diagnostics diags("g.yaml");
    GraphAst g = parse("fieldflow: 1\nvars:\n  a: ~\n  b:\n  c: \"~\"\nnodes: {}\n", diags);
    ASSERT_TRUE(diags.empty()) << diags.format();
    ASSERT_EQ(g.vars.size(), 3u);
    EXPECT_FALSE(g.vars[0].default_value.has_value());
    EXPECT_FALSE(g.vars[1].default_value.has_value());
    EXPECT_EQ(g.vars[2].default_value, "~"); // quoted: a string
}

TEST(GraphFile, DuplicateKeysAreReportedAtEveryLevel) {
    Diagnostics diags("g.yaml");
    parse("fieldflow: 1\n"
          "nodes:\n"
          "  c:\n"
          "    op: Constant\n"
          "    params: {width: 1, width: 2}\n"
          "    op: Add\n",
          diags);
    EXPECT_EQ(diags.format(),
              "g.yaml:5:24: error: node 'c': params: duplicate key 'width'\n"
              "g.yaml:6:5: error: node 'c': duplicate key 'op'\n");
}

TEST(GraphFile, EmptyFileAndNonMappingRoot) {
    Diagnostics empty("e.yaml");
    parse("", empty);
    EXPECT_EQ(empty.format(), "e.yaml:1:1: error: a graph file is a mapping with 'fieldflow: 1' and 'nodes'\n");
    Diagnostics list("l.yaml");
    parse("- a\n- b\n", list);
    EXPECT_EQ(list.format(), "l.yaml:1:1: error: a graph file is a mapping with 'fieldflow: 1' and 'nodes'\n");
}

TEST(GraphFile, MissingVersionAndUnknownTopLevelKey) {
    Diagnostics diags("g.yaml");
    parse("nodes: {}\nvar: {}\n", diags);
    EXPECT_EQ(diags.format(),
              "g.yaml:1:1: error: missing 'fieldflow: 1' (the format version)\n"
              "g.yaml:2:1: error: unknown top-level key 'var' (did you mean 'vars'?); a graph has "
              "fieldflow, description, vars, nodes\n");
}

TEST(GraphFile, MissingFileIsAnError) {
    Diagnostics diags("/nonexistent/graph.yaml");
    parse_graph_file("/nonexistent/graph.yaml", diags);
    EXPECT_EQ(diags.format(),
              "/nonexistent/graph.yaml:1:1: error: cannot read the graph file: No such file or directory\n");
}

} // namespace
} // namespace fieldflow::host
