// Validation of good graphs: defaults, resolved inputs, dependency order, validate() callbacks.
#include "test_support.hpp"

namespace fieldflow::host {
namespace {

TEST(Validate, FillsDefaultsResolvesInputsAndOrders) {
    OpRegistry registry = test::test_registry();
    // Written consumers first: the order in the file has no meaning.
    Graph g = test::valid_graph("fieldflow: 1\n"
                                "nodes:\n"
                                "  sum:\n"
                                "    op: Add\n"
                                "    inputs: {b: right.image, a: halves.left}\n"
                                "  right: {op: Sleep, inputs: {image: halves.right}, params: {ms: 0}}\n"
                                "  halves: {op: Split, inputs: {image: c}}\n"
                                "  c: {op: Constant, params: {width: 6, value: 2}}\n",
                                registry);
    ASSERT_EQ(g.nodes.size(), 4u);
    const PlannedNode& c = g.nodes[g.find("c")];
    EXPECT_EQ(std::get<int64_t>(c.param("width")->value), 6);
    EXPECT_FALSE(c.param("width")->from_default);
    EXPECT_EQ(std::get<int64_t>(c.param("height")->value), 4);
    EXPECT_TRUE(c.param("height")->from_default);
    EXPECT_DOUBLE_EQ(std::get<double>(c.param("value")->value), 2.0); // "2" for a float param
    EXPECT_EQ(std::get<std::string>(c.param("mode")->value), "flat");

    const PlannedNode& sum = g.nodes[g.find("sum")];
    ASSERT_EQ(sum.inputs.size(), 2u);
    EXPECT_EQ(sum.inputs[0].port, "a"); // declaration order, not file order
    EXPECT_EQ(g.nodes[sum.inputs[0].source].name, "halves");
    EXPECT_EQ(sum.inputs[0].source_port, "left");
    EXPECT_EQ(g.nodes[sum.inputs[1].source].name, "right");

    std::vector<std::string> order;
    for (size_t i : g.order) order.push_back(g.nodes[i].name);
    EXPECT_EQ(order, (std::vector<std::string>{"c", "halves", "right", "sum"}));
}

TEST(Validate, OptionalInputsMayStayUnconnected) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nnodes:\n  f: {op: Fail}\n", registry);
    EXPECT_TRUE(g.nodes.at(0).inputs.empty());
}

TEST(Validate, OpValidateCallbackAcceptsGoodParams) {
    OpRegistry registry = test::test_registry();
    test::valid_graph("fieldflow: 1\nnodes:\n"
                      "  c: {op: Constant}\n"
                      "  fit: {op: Fit, inputs: {image: c}, params: {steps: 3}}\n"
                      "  r: {op: Render, inputs: {model: fit.model}, params: {size: [8, 2]}}\n",
                      registry);
}

TEST(Validate, OverwritingAnInputNeedsOverwriteTrue) {
    OpRegistry registry = test::test_registry();
    const std::string nodes = "fieldflow: 1\nnodes:\n"
                              "  n: {op: ReadNumber, params: {path: in/x.txt}}\n"
                              "  w:\n    op: WriteNumber\n";
    const std::string rest = "    inputs: {image: n}\n    params: {path: in/x.txt}\n";
    EXPECT_NE(test::graph_errors(nodes + rest, registry).find("would overwrite the file node 'n' reads"),
              std::string::npos);
    test::valid_graph(nodes + "    overwrite: true\n" + rest, registry);
    EXPECT_EQ(test::graph_errors(nodes + "    overwrite: yes please\n" + rest, registry).rfind(
                  "test.yaml:6:16: error: node 'w': 'overwrite' must be true or false\n", 0),
              0u);
    // Different files are fine; so is reading a file another graph writes.
    test::valid_graph("fieldflow: 1\nnodes:\n"
                      "  n: {op: ReadNumber, params: {path: in/x.txt}}\n"
                      "  w: {op: WriteNumber, inputs: {image: n}, params: {path: out/x.txt}}\n",
                      registry);
}

TEST(Validate, AParamWithoutEffectIsAWarningAtItsPosition) {
    // ramp_start applies when mode=ramp: set to other than its default with mode flat, the graph
    // is valid but says so, FILE:LINE:COL at the value; at its default, or with mode ramp, nothing.
    OpRegistry registry = test::test_registry();
    Graph flat = test::valid_graph("fieldflow: 1\nnodes:\n  c:\n    op: Constant\n"
                                   "    params: {mode: flat, ramp_start: 0.25}\n",
                                   registry);
    ASSERT_EQ(flat.warnings.size(), 1u);
    EXPECT_EQ(flat.warnings[0].format(),
              "test.yaml:5:38: warning: node 'c': param 'ramp_start' has no effect here: it applies when "
              "mode=ramp, and mode is 'flat'");
    EXPECT_TRUE(test::valid_graph("fieldflow: 1\nnodes:\n  c: {op: Constant, params: {ramp_start: 0}}\n",
                                  registry).warnings.empty());
    EXPECT_TRUE(test::valid_graph("fieldflow: 1\nnodes:\n  c: {op: Constant, params: {mode: ramp, ramp_start: 2}}\n",
                                  registry).warnings.empty());
}

TEST(Validate, AParamFromTheGraphsOwnVarsWarnsOnlyWhenTheUserSetIt) {
    // A graph written for both modes (`--set mode=flat` switches): ramp_start from a var the user
    // left alone is the author's template, so no warning; once the user sets that var, the value
    // they chose has no effect, which is said.
    OpRegistry registry = test::test_registry();
    const std::string graph = "fieldflow: 1\nvars: {mode: ramp, start: 0.25}\nnodes:\n  c:\n    op: Constant\n"
                              "    params: {mode: '${mode}', ramp_start: '${start}'}\n";
    EXPECT_TRUE(test::valid_graph(graph, registry, {{"mode", "flat"}}).warnings.empty());
    Graph chosen = test::valid_graph(graph, registry, {{"mode", "flat"}, {"start", "0.5"}});
    ASSERT_EQ(chosen.warnings.size(), 1u);
    EXPECT_NE(chosen.warnings[0].format().find("param 'ramp_start' has no effect here"), std::string::npos);
}

TEST(Validate, SelfReferenceIsACycle) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(test::graph_errors("fieldflow: 1\nnodes:\n"
                                 "  loop: {op: Sleep, inputs: {image: loop}}\n",
                                 registry),
              "test.yaml:3:3: error: node 'loop': cycle loop -> loop\n");
}

TEST(Validate, TwoSeparateCyclesAreBothReported) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(test::graph_errors("fieldflow: 1\nnodes:\n"
                                 "  a: {op: Sleep, inputs: {image: b}}\n"
                                 "  b: {op: Sleep, inputs: {image: a}}\n"
                                 "  x: {op: Sleep, inputs: {image: y}}\n"
                                 "  y: {op: Sleep, inputs: {image: x}}\n"
                                 "  after: {op: Sleep, inputs: {image: y}}\n",
                                 registry),
              "test.yaml:3:3: error: node 'a': cycle a -> b -> a\n"
              "test.yaml:5:3: error: node 'x': cycle x -> y -> x\n");
}

TEST(Validate, SetOfUndeclaredVariableIsReportedAgainstTheFile) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(test::graph_errors("fieldflow: 1\nnodes:\n  c: {op: Constant}\n", registry,
                                 {{"value", "1"}}),
              "test.yaml:1:1: error: --set value: the graph declares no variable 'value'; it has no vars\n");
}

TEST(Validate, ASyntaxErrorIsTheOnlyErrorEvenWithSetValues) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(test::graph_errors("fieldflow: 1\nnodes: [\n", registry, {{"input", "x"}, {"output", "y"}}),
              "test.yaml:3:1: error: YAML syntax: end of sequence flow not found\n");
}

TEST(Validate, VariablesThatReferToVariablesAndEmptyRootPathsAreErrors) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(test::graph_errors("fieldflow: 1\nvars: {a: \"${a}\"}\nnodes:\n  c: {op: Constant}\n", registry),
              "test.yaml:2:8: error: variable 'a' = '${a}' refers to itself: variable values are not expanded; "
              "give the value itself (write '$${' for a literal '${')\n");
    const std::string errors = test::graph_errors(
        "fieldflow: 1\nvars: {out: ~}\nnodes:\n  c: {op: Fail, params: {message: \"${out}/x\"}}\n", registry,
        {{"out", ""}});
    EXPECT_NE(errors.find("variable 'out' is empty, so '${out}/x' resolves to '/x' in the root folder"),
              std::string::npos) << errors;
}

TEST(Validate, ListParamFromAVariable) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\nvars: {size: '[16, 9]'}\nnodes:\n"
                                "  c: {op: Constant}\n"
                                "  fit: {op: Fit, inputs: {image: c}, params: {steps: 1}}\n"
                                "  r: {op: Render, inputs: {model: fit}, params: {size: '${size}'}}\n",
                                registry);
    EXPECT_EQ(std::get<std::vector<int64_t>>(g.nodes[2].param("size")->value),
              (std::vector<int64_t>{16, 9}));
}

} // namespace
} // namespace fieldflow::host
