// Variables: ${name}, defaults, --set, escapes and their errors.
#include "test_support.hpp"

#include <fieldflow/host/variables.hpp>

namespace fieldflow::host {
namespace {

GraphAst with_vars(const std::string& vars) {
    Diagnostics diags("v.yaml");
    GraphAst g = parse_graph_text("fieldflow: 1\nvars:\n" + vars + "nodes: {}\n", diags);
    EXPECT_TRUE(diags.empty()) << diags.format();
    return g;
}

std::string expand(const Variables& vars, const std::string& text, Diagnostics& diags) {
    auto out = vars.expand(ScalarAst{text, {7, 9}, false}, "node 'n': param 'p'", diags);
    return out ? *out : "<error>";
}

TEST(Variables, ExpandsDefaultsAndSets) {
    GraphAst g = with_vars("  dir: out\n  name: lake\n");
    Diagnostics diags("v.yaml");
    Variables vars = Variables::resolve(g, {{"name", "leuven"}, {"name", "graf"}}, diags);
    EXPECT_EQ(expand(vars, "${dir}/${name}.png", diags), "out/graf.png"); // the last --set wins
    EXPECT_EQ(expand(vars, "no variables", diags), "no variables");
    EXPECT_EQ(expand(vars, "cost: $5 {x}", diags), "cost: $5 {x}");
    EXPECT_TRUE(diags.empty()) << diags.format();
}

TEST(Variables, DollarDollarBraceEscapes) {
    GraphAst g = with_vars("  a: 1\n");
    Diagnostics diags("v.yaml");
    Variables vars = Variables::resolve(g, {}, diags);
    EXPECT_EQ(expand(vars, "$${a} is ${a}", diags), "${a} is 1");
    EXPECT_TRUE(diags.empty());
}

TEST(Variables, UnknownUnsetAndUnterminatedAreErrorsAtTheScalar) {
    GraphAst g = with_vars("  input: a.png\n  model: ~\n");
    Diagnostics diags("v.yaml");
    Variables vars = Variables::resolve(g, {}, diags);
    EXPECT_EQ(expand(vars, "${inptu}", diags), "<error>");
    EXPECT_EQ(expand(vars, "${model}", diags), "<error>");
    EXPECT_EQ(expand(vars, "${input", diags), "<error>");
    EXPECT_EQ(diags.format(),
              "v.yaml:7:9: error: node 'n': param 'p': unknown variable 'inptu' (did you mean "
              "'input'?); declare it under 'vars'\n"
              "v.yaml:7:9: error: node 'n': param 'p': variable 'model' has no value; give one "
              "with --set model=...\n"
              "v.yaml:7:9: error: node 'n': param 'p': unterminated '${' (write '$${' for a "
              "literal '${')\n");
}

TEST(Variables, SetOfAnUndeclaredVariableIsAnError) {
    GraphAst g = with_vars("  steps: 10\n");
    Diagnostics diags("v.yaml");
    Variables::resolve(g, {{"stpes", "20"}}, diags);
    EXPECT_EQ(diags.format(), "v.yaml:1:1: error: --set stpes: the graph declares no variable "
                              "'stpes' (did you mean 'steps'?); its vars are steps\n");
}

TEST(Variables, SetArgumentParsing) {
    EXPECT_EQ(parse_set_argument("a=b=c"), std::make_pair(std::string("a"), std::string("b=c")));
    EXPECT_EQ(parse_set_argument("a="), std::make_pair(std::string("a"), std::string()));
    EXPECT_FALSE(parse_set_argument("novalue").has_value());
    EXPECT_FALSE(parse_set_argument("=x").has_value());
    EXPECT_FALSE(parse_set_argument("bad name=x").has_value());
}

TEST(Variables, WholeScalarVariableTakesTheParamsType) {
    OpRegistry registry = test::test_registry();
    Graph g = test::valid_graph("fieldflow: 1\n"
                                "vars: {steps: 40, w: 3}\n"
                                "nodes:\n"
                                "  c: {op: Constant, params: {width: '${w}'}}\n"
                                "  fit:\n"
                                "    op: Fit\n"
                                "    inputs: {image: c}\n"
                                "    params:\n"
                                "      steps: ${steps}\n",
                                registry, {{"steps", "250"}});
    ASSERT_EQ(g.nodes.size(), 2u);
    EXPECT_EQ(std::get<int64_t>(g.nodes[0].param("width")->value), 3);
    EXPECT_EQ(std::get<int64_t>(g.nodes[1].param("steps")->value), 250);
}

} // namespace
} // namespace fieldflow::host
