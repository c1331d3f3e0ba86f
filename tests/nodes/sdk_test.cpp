// The plugin SDK (node.hpp): declarations built by OpBuilder survive the move into the
// Registry, every exception becomes a status at the ABI boundary, and Node's getters report
// misuse as errors instead of returning garbage.
#include "fake_host.hpp"

#include <fieldflow/node.hpp>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <optional>

using ff::test::FakeRun;

namespace {

ff::OpBuilder sample_builder(ff::ExecuteFn execute) {
    return std::move(ff::op("Sample", "test")
        .doc("an op for tests")
        .flags(FF_OP_CACHE_ON_DISK)
        .version(7)
        .input("image", ff::kImage, "an image")
        .optional_input("extra", ff::kJson, "optional json")
        .output("out", ff::kJson, "result")
        .param_int("count", 3, 1, 10, "an int")
        .param_float("ratio", 0.5, 0.0, 1.0, "a float")
        .param_float("whole", 2.0, 0.0, 10.0, "a float with an integral default")
        .param_bool("on", true, "a bool")
        .param_string("path", std::nullopt, "a required string")
        .param_enum("mode", "b", "a|b|c", "an enum")
        .param_int_list("steps", "[1, 10]", 0, 100, "ints")
        .param_string_list("labels", "[x, y]", "strings")
        .execute(std::move(execute)));
}

const ff_param_decl& param_named(const ff_op_decl& decl, const char* name) {
    for (uint32_t i = 0; i < decl.param_count; ++i)
        if (std::strcmp(decl.params[i].name, name) == 0) return decl.params[i];
    throw std::runtime_error(std::string("no param ") + name);
}

} // namespace

TEST(Sdk, NumberedOptionalInputsInOrder) {
    static constexpr std::array<const char*, 3> kPorts = {"image1", "image2", "image3"};
    ff::OpBuilder builder = ff::op("Strip", "test");
    builder.optional_inputs(kPorts, ff::kImage, "image");
    const ff_op_decl* decl = builder.decl();
    ASSERT_EQ(decl->input_count, 3u);
    const char* docs[] = {"first image", "second image", "third image"};
    for (uint32_t i = 0; i < 3; ++i) {
        EXPECT_STREQ(decl->inputs[i].name, kPorts[i]);
        EXPECT_STREQ(decl->inputs[i].type, "image");
        EXPECT_STREQ(decl->inputs[i].doc, docs[i]);
        EXPECT_EQ(decl->inputs[i].optional, 1);
    }
}

TEST(Sdk, DeclarationSurvivesMoveIntoRegistry) {
    ff::Registry registry;
    ff::OpBuilder& stored = registry.add(sample_builder([](ff::Node&) {}));
    // Build more ops afterwards: neither the deque nor the strings may move the first one's data.
    for (int i = 0; i < 40; ++i) registry.add(ff::op("Other" + std::to_string(i), "test"));
    const ff_op_decl* decl = stored.decl();

    EXPECT_EQ(decl->struct_size, sizeof(ff_op_decl));
    EXPECT_STREQ(decl->name, "Sample");
    EXPECT_STREQ(decl->category, "test");
    EXPECT_STREQ(decl->doc, "an op for tests");
    EXPECT_EQ(decl->flags, uint32_t(FF_OP_CACHE_ON_DISK));
    EXPECT_EQ(decl->version, 7u);
    EXPECT_EQ(decl->user, &stored);
    ASSERT_EQ(decl->input_count, 2u);
    EXPECT_STREQ(decl->inputs[0].name, "image");
    EXPECT_STREQ(decl->inputs[0].type, "image");
    EXPECT_EQ(decl->inputs[0].optional, 0);
    EXPECT_STREQ(decl->inputs[1].type, "json");
    EXPECT_EQ(decl->inputs[1].optional, 1);
    ASSERT_EQ(decl->output_count, 1u);
    EXPECT_STREQ(decl->outputs[0].name, "out");
    ASSERT_EQ(decl->param_count, 8u);
    EXPECT_NE(decl->execute, nullptr);
    EXPECT_EQ(decl->validate, nullptr);

    EXPECT_STREQ(param_named(*decl, "count").default_value, "3");
    EXPECT_EQ(param_named(*decl, "count").min, 1);
    EXPECT_EQ(param_named(*decl, "count").max, 10);
    EXPECT_STREQ(param_named(*decl, "ratio").default_value, "0.5");
    EXPECT_STREQ(param_named(*decl, "whole").default_value, "2.0");
    EXPECT_STREQ(param_named(*decl, "on").default_value, "true");
    EXPECT_EQ(param_named(*decl, "path").default_value, nullptr);
    EXPECT_EQ(param_named(*decl, "path").kind, FF_PARAM_STRING);
    EXPECT_STREQ(param_named(*decl, "mode").choices, "a|b|c");
    EXPECT_EQ(param_named(*decl, "mode").kind, FF_PARAM_ENUM);
    EXPECT_STREQ(param_named(*decl, "steps").default_value, "[1, 10]");
    EXPECT_EQ(param_named(*decl, "labels").kind, FF_PARAM_STRING_LIST);

    const ff_plugin_info* info = registry.info("testplugin", "2.1.0");
    EXPECT_EQ(info->struct_size, sizeof(ff_plugin_info));
    EXPECT_EQ(info->abi_major, FF_ABI_MAJOR);
    EXPECT_EQ(info->abi_minor, FF_ABI_MINOR);
    EXPECT_STREQ(info->name, "testplugin");
    ASSERT_EQ(info->op_count, 41u);
    EXPECT_EQ(info->ops[0], decl);
    EXPECT_STREQ(info->ops[40]->name, "Other39");
}

TEST(Sdk, ParamsAndInputsReachExecute) {
    ff::Registry registry;
    std::string seen;
    const ff_op_decl* decl = registry.add(sample_builder([&](ff::Node& node) {
        ff::ImageView image = node.image("image");
        seen = std::to_string(image.width) + "x" + std::to_string(image.height) + " " +
               std::to_string(node.integer("count")) + " " + std::to_string(node.number("ratio")) +
               " " + (node.flag("on") ? "on" : "off") + " " + node.string("path") + " " +
               node.string("mode") + " " + std::to_string(node.integers("steps").size()) + " " +
               node.strings("labels").at(1) + " " + (node.optional_blob("extra") ? "extra" : "none");
        node.output_text("out", "{}");
        node.progress(1, 2, "half");
    })).decl();
    FakeRun run(*decl);
    run.input("image", ff::test::Image{4, 2, 3, std::vector<float>(24, 0.5f)}).param("path", "p.txt");
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    EXPECT_EQ(seen, "4x2 3 0.500000 on p.txt b 2 y none");
    EXPECT_EQ(run.output_text("out"), "{}");
    EXPECT_EQ(run.progress_calls(), 1u);
}

TEST(Sdk, ExceptionsBecomeStatusesAtTheBoundary) {
    struct Case {
        ff::ExecuteFn fn;
        ff_status status;
        std::string message;
        std::string param;
    };
    std::vector<Case> cases = {
        {[](ff::Node&) { throw ff::ParamError("count", "count is odd"); }, FF_ERROR, "count is odd", "count"},
        {[](ff::Node&) { throw ff::Error("plain failure"); }, FF_ERROR, "plain failure", ""},
        {[](ff::Node&) { throw std::out_of_range("vector index"); }, FF_ERROR, "vector index", ""},
        {[](ff::Node&) { throw 42; }, FF_ERROR, "unknown exception", ""},
        {[](ff::Node& node) { node.throw_if_cancelled(); }, FF_CANCELLED, "", ""},
    };
    ff::Registry registry;
    for (auto& c : cases) {
        const ff_op_decl* decl = registry.add(sample_builder(c.fn)).decl();
        FakeRun run(*decl);
        run.param("path", "x").cancel();
        EXPECT_EQ(run.execute(), c.status) << c.message;
        EXPECT_EQ(run.error(), c.message);
        EXPECT_EQ(run.error_param(), c.param);
    }
}

// A real cv::Exception (an empty image to encode) reaches the host as a sentence: no "OpenCV(4.x)"
// and source path, but the call that failed, why, the node's file and what to do.
TEST(Sdk, OpenCvErrorsBecomeASentenceNamingTheFile) {
    ff::Registry registry;
    const ff_op_decl* decl = registry
                                 .add(std::move(ff::op("Encode", "test")
                                                    .param_string("path", std::nullopt, "the file to write")
                                                    .param_flags(FF_PARAM_WRITES_FILE)
                                                    .execute([](ff::Node&) {
                                                        std::vector<unsigned char> bytes;
                                                        cv::imencode(".png", cv::Mat(), bytes);
                                                    })))
                                 .decl();
    FakeRun run(*decl);
    run.param("path", "out/x.png");
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_EQ(run.error().find("OpenCV("), std::string::npos) << run.error();
    EXPECT_EQ(run.error(), "the image library (OpenCV) failed in imencode (Assertion failed: !image.empty()) on "
                           "'out/x.png'; the input is likely of a size, shape or type this node cannot handle: "
                           "try another (e.g. a larger or smaller image), and report this message if the input "
                           "is ordinary");
}

TEST(Sdk, ValidateIsWrappedToo) {
    ff::Registry registry;
    const ff_op_decl* decl =
        registry
            .add(std::move(sample_builder([](ff::Node&) {}).validate([](ff::Node& node) {
                if (node.integer("count") > 5) throw ff::ParamError("count", "too many");
            })))
            .decl();
    ASSERT_NE(decl->validate, nullptr);
    FakeRun run(*decl);
    run.param("path", "x");
    EXPECT_EQ(run.validate(), FF_OK);
    run.param("count", 6);
    EXPECT_EQ(run.validate(), FF_ERROR);
    EXPECT_EQ(run.error(), "too many");
    EXPECT_EQ(run.error_param(), "count");
}

TEST(Sdk, GetterMisuseIsAnErrorNamingTheCulprit) {
    using Probe = std::function<void(ff::Node&)>;
    const std::vector<std::pair<Probe, std::string>> probes = {
        {[](ff::Node& n) { n.integer("nosuch"); }, "param 'nosuch'"},
        {[](ff::Node& n) { n.string("count"); }, "param 'count'"},
        {[](ff::Node& n) { n.number("mode"); }, "param 'mode'"},
        {[](ff::Node& n) { n.integers("labels"); }, "param 'labels'"},
        {[](ff::Node& n) { n.image("extra"); }, "input 'extra' is not connected"},
        {[](ff::Node& n) { n.blob("extra"); }, "input 'extra' is not connected"},
        {[](ff::Node& n) { n.output_image("out", 2, 2); }, "output 'out'"},
        {[](ff::Node& n) { n.output_image("out", 0, 2); }, "empty image"},
        {[](ff::Node& n) {
             n.output_text("out", "a");
             n.output_text("out", "b");
         },
         "output 'out'"},
    };
    ff::Registry registry;
    for (const auto& [probe, expected] : probes) {
        const ff_op_decl* decl = registry.add(sample_builder(probe)).decl();
        FakeRun run(*decl);
        run.param("path", "x");
        EXPECT_EQ(run.execute(), FF_ERROR) << expected;
        EXPECT_NE(run.error().find(expected), std::string::npos) << run.error();
    }
}

namespace {

// Host tables for Node::state_dir: only the entry under test is filled in.
int g_state_dir_calls = 0;
const char* g_state_dir_answer = nullptr;
const char* fake_state_dir(ff_context*) {
    ++g_state_dir_calls;
    return g_state_dir_answer;
}

} // namespace

TEST(Sdk, StateDirOnlyFromHostsThatHaveIt) {
    ff_host_api host{};
    host.state_dir = fake_state_dir;
    ff::Node node(&host, nullptr);

    // An ABI 1.0 host's table ends before state_dir: the SDK must not read (or call) past it.
    host.struct_size = uint32_t(offsetof(ff_host_api, state_dir));
    g_state_dir_calls = 0;
    g_state_dir_answer = "/cache/state/abc";
    EXPECT_EQ(node.state_dir(), std::nullopt);
    EXPECT_EQ(g_state_dir_calls, 0);

    host.struct_size = sizeof(ff_host_api);
    EXPECT_EQ(node.state_dir(), std::optional<std::string>("/cache/state/abc"));
    EXPECT_EQ(g_state_dir_calls, 1);
    g_state_dir_answer = nullptr; // no disk cache
    EXPECT_EQ(node.state_dir(), std::nullopt);
    host.state_dir = nullptr; // a table that leaves the entry empty
    EXPECT_EQ(node.state_dir(), std::nullopt);
}
