// Param text -> typed, checked values.
#include <fieldflow/host/param_value.hpp>

#include <gtest/gtest.h>

namespace fieldflow::host {
namespace {

ParamInfo info(ff_param_kind kind, double min = 0, double max = -1, std::vector<std::string> choices = {}) {
    ParamInfo p;
    p.name = "p";
    p.kind = kind;
    p.has_range = min <= max;
    p.min = min;
    p.max = max;
    p.choices = std::move(choices);
    return p;
}

ParamText scalar(std::string s) {
    ParamText t;
    t.scalar = std::move(s);
    return t;
}

ParamText list(std::vector<std::string> items) {
    ParamText t;
    t.is_sequence = true;
    t.items = std::move(items);
    return t;
}

TEST(Params, Integers) {
    auto p = info(FF_PARAM_INT, 1, 10);
    EXPECT_EQ(std::get<int64_t>(*parse_param(p, scalar("7")).value), 7);
    EXPECT_EQ(std::get<int64_t>(*parse_param(p, scalar("+7")).value), 7);
    EXPECT_EQ(parse_param(p, scalar("7.5")).error, "must be an integer, got '7.5'");
    EXPECT_EQ(parse_param(p, scalar("11")).error, "= 11 is out of range [1, 10]");
    EXPECT_EQ(parse_param(p, scalar("99999999999999999999")).error,
              "= 99999999999999999999 is out of range [1, 10]");
    EXPECT_EQ(parse_param(p, list({"1"})).error, "must be an int, not a list");
}

TEST(Params, FloatsMustBeFinite) {
    auto p = info(FF_PARAM_FLOAT, 0, 1);
    EXPECT_DOUBLE_EQ(std::get<double>(*parse_param(p, scalar("0.25")).value), 0.25);
    EXPECT_DOUBLE_EQ(std::get<double>(*parse_param(p, scalar("1")).value), 1.0);
    EXPECT_DOUBLE_EQ(std::get<double>(*parse_param(p, scalar("1e-3")).value), 0.001);
    for (const char* bad : {".nan", ".inf", "-.Inf", "nan", "inf", "1e999"})
        EXPECT_EQ(parse_param(p, scalar(bad)).error, std::string("must be a finite number, got '") + bad + "'");
    EXPECT_EQ(parse_param(p, scalar("1.5")).error, "= 1.5 is out of range [0, 1]");
    EXPECT_EQ(parse_param(p, scalar("half")).error, "must be a number, got 'half'");
}

TEST(Params, BoolsEnumsStrings) {
    EXPECT_EQ(std::get<bool>(*parse_param(info(FF_PARAM_BOOL), scalar("true")).value), true);
    EXPECT_EQ(std::get<bool>(*parse_param(info(FF_PARAM_BOOL), scalar("False")).value), false);
    EXPECT_EQ(parse_param(info(FF_PARAM_BOOL), scalar("maybe")).error, "must be true or false, got 'maybe'");
    auto e = info(FF_PARAM_ENUM, 0, -1, {"nearest", "linear", "area"});
    EXPECT_EQ(std::get<std::string>(*parse_param(e, scalar("area")).value), "area");
    EXPECT_EQ(parse_param(e, scalar("liner")).error,
              "must be one of nearest, linear, area; got 'liner' (did you mean 'linear'?)");
    EXPECT_EQ(std::get<std::string>(*parse_param(info(FF_PARAM_STRING), scalar("12")).value), "12");
    ParamText null;
    null.is_null = true;
    EXPECT_EQ(parse_param(info(FF_PARAM_STRING), null).error,
              "has no value (leave it out to use the default)");
}

TEST(Params, ListsFromSequencesScalarsAndFlowText) {
    auto p = info(FF_PARAM_INT_LIST, 1, 100);
    EXPECT_EQ(std::get<std::vector<int64_t>>(*parse_param(p, list({"1", "2"})).value),
              (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(std::get<std::vector<int64_t>>(*parse_param(p, scalar("5")).value),
              (std::vector<int64_t>{5}));
    EXPECT_EQ(std::get<std::vector<int64_t>>(*parse_param(p, scalar("[3, 4]")).value),
              (std::vector<int64_t>{3, 4}));
    ParamParse bad = parse_param(p, list({"1", "200"}));
    EXPECT_EQ(bad.error, "item 2 = 200 is out of range [1, 100]");
    EXPECT_EQ(bad.item, 1);
    EXPECT_EQ(std::get<std::vector<std::string>>(
                  *parse_param(info(FF_PARAM_STRING_LIST), list({"a", "b"})).value),
              (std::vector<std::string>{"a", "b"}));
}

TEST(Params, CanonicalText) {
    EXPECT_EQ(canonical_text(ParamValue(int64_t(3))), "3");
    EXPECT_EQ(canonical_text(ParamValue(0.1)), "0.10000000000000001");
    EXPECT_EQ(canonical_text(ParamValue(std::vector<int64_t>{1, 2})), "[1, 2]");
}

} // namespace
} // namespace fieldflow::host
