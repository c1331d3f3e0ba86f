// Plugin loading through the C ABI: the plain-C test plugin, broken plugins, search paths, and
// declarations from a newer (larger-struct) plugin.
#include "test_support.hpp"

#include <cstdlib>

namespace fieldflow::host {
namespace {

TEST(PluginLoader, LoadsThePlainCTestPlugin) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(registry.size(), 14u);
    const OpInfo* c = registry.find("Constant");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->plugin_name, "test");
    EXPECT_EQ(c->plugin_version, "1.0.0");
    EXPECT_EQ(c->plugin_file, FF_TEST_PLUGIN);
    EXPECT_EQ(c->category, "test");
    ASSERT_EQ(c->outputs.size(), 1u);
    EXPECT_EQ(c->outputs[0].type, "image");
    const ParamInfo* mode = c->find_param("mode");
    ASSERT_NE(mode, nullptr);
    EXPECT_EQ(mode->choices, (std::vector<std::string>{"flat", "ramp"}));
    EXPECT_EQ(std::get<std::string>(*mode->default_value), "flat");
    const ParamInfo* steps = registry.find("Fit")->find_param("steps");
    EXPECT_FALSE(steps->default_value.has_value()); // required
    EXPECT_EQ(registry.find("Fit")->flags, uint32_t(FF_OP_CACHE_ON_DISK));
    EXPECT_TRUE(registry.find("Fail")->inputs.at(0).optional);
    EXPECT_NE(registry.find("Render")->validate, nullptr);
}

// "1.1" for ABI 1.1: the messages below name the host's own version.
std::string abi(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }

TEST(PluginLoader, WrongMajorAbiIsRefused) {
    OpRegistry registry;
    EXPECT_EQ(load_plugin_file(FF_BAD_ABI_MAJOR_PLUGIN, registry),
              std::string("plugin ") + FF_BAD_ABI_MAJOR_PLUGIN +
                  ": plugin ABI 2.0 is not supported: this fieldflow hosts ABI " +
                  abi(FF_ABI_MAJOR, FF_ABI_MINOR) + " (rebuild the plugin against this fieldflow's plugin.h)");
    EXPECT_EQ(registry.size(), 0u);
}

TEST(PluginLoader, NewerMinorAbiIsRefused) {
    OpRegistry registry;
    EXPECT_EQ(load_plugin_file(FF_BAD_ABI_MINOR_PLUGIN, registry),
              std::string("plugin ") + FF_BAD_ABI_MINOR_PLUGIN +
                  ": plugin needs ABI " + abi(FF_ABI_MAJOR, FF_ABI_MINOR + 1) + ", newer than this fieldflow's " +
                  abi(FF_ABI_MAJOR, FF_ABI_MINOR) + " (update fieldflow)");
}

TEST(PluginLoader, MissingEntryPointIsRefused) {
    OpRegistry registry;
    EXPECT_EQ(load_plugin_file(FF_BAD_NO_ENTRY_PLUGIN, registry),
              std::string("plugin ") + FF_BAD_NO_ENTRY_PLUGIN +
                  ": not a fieldflow plugin: it exports no 'fieldflow_plugin' entry point");
}

TEST(PluginLoader, DuplicateOpNamesBothFiles) {
    OpRegistry registry = test::test_registry();
    EXPECT_EQ(load_plugin_file(FF_BAD_DUPLICATE_PLUGIN, registry),
              std::string("plugin ") + FF_BAD_DUPLICATE_PLUGIN +
                  ": op 'Constant' is already provided by " + FF_TEST_PLUGIN);
    EXPECT_EQ(registry.size(), 14u); // the refused plugin added nothing
}

TEST(PluginLoader, UnloadableFileGivesTheDlerror) {
    OpRegistry registry;
    test::TempDir dir;
    test::write_text(dir / "junk.so", "not an ELF file");
    const std::string error = load_plugin_file(dir / "junk.so", registry);
    EXPECT_EQ(error.rfind("plugin " + (dir / "junk.so") + ": cannot load: ", 0), 0u) << error;
    EXPECT_NE(error.find("junk.so"), std::string::npos);
}

TEST(PluginLoader, SearchesFieldflowPluginPath) {
    const std::string dir = std::filesystem::path(FF_TEST_PLUGIN).parent_path().string();
    ::setenv("FIELDFLOW_PLUGIN_PATH", ("/nonexistent/folder:" + dir).c_str(), 1);
    OpRegistry registry;
    std::vector<std::string> errors = load_plugins(registry, {FF_TEST_PLUGIN});
    ::unsetenv("FIELDFLOW_PLUGIN_PATH");
    // The folder holds the test plugin and the four broken ones; files load in name order, so the
    // duplicate plugin ("ff_bad_duplicate.so") comes first and the test plugin is refused.
    std::vector<std::string> from_dir;
    for (const std::string& e : errors)
        if (e.find(dir) != std::string::npos) from_dir.push_back(e);
    ASSERT_EQ(from_dir.size(), 4u) << testing::PrintToString(errors);
    EXPECT_NE(from_dir[0].find("ABI 2.0 is not supported"), std::string::npos);
    EXPECT_NE(from_dir[1].find("needs ABI " + abi(FF_ABI_MAJOR, FF_ABI_MINOR + 1)), std::string::npos);
    EXPECT_NE(from_dir[2].find("no 'fieldflow_plugin' entry point"), std::string::npos);
    EXPECT_EQ(from_dir[3], std::string("plugin ") + FF_TEST_PLUGIN +
                               ": op 'Constant' is already provided by " + dir + "/ff_bad_duplicate.so");
    // --plugin naming an already-found file loads it once, not twice.
    EXPECT_EQ(errors.size(), 4u) << testing::PrintToString(errors);
}

// A plugin built against a future ABI 1.x whose structs grew: the host must step through the
// arrays by the plugin's struct_size and ignore the fields it does not know.
struct PortV2 {
    ff_port_decl base;
    uint64_t future_field;
};
struct ParamV2 {
    ff_param_decl base;
    uint64_t future_field;
};

ff_status noop(const ff_host_api*, ff_context*, void*) { return FF_OK; }
void release_noop(const ff_host_api*, ff_context*, void*) {}

TEST(PluginLoader, ReadsLargerStructsFromNewerMinorVersions) {
    PortV2 outs[2] = {{{sizeof(PortV2), "a", "image", "first", 0}, 7},
                      {{sizeof(PortV2), "b", "json", "second", 0}, 8}};
    ParamV2 params[2] = {{{sizeof(ParamV2), "n", FF_PARAM_INT, "3", 0, 9, nullptr, "n", 0, nullptr}, 1},
                         {{sizeof(ParamV2), "m", FF_PARAM_ENUM, "y", 0, -1, "x|y", "m", 0, nullptr}, 2}};
    ff_op_decl op{};
    op.struct_size = sizeof(ff_op_decl);
    op.name = "Future";
    op.category = "test";
    op.outputs = &outs[0].base;
    op.output_count = 2;
    op.params = &params[0].base;
    op.param_count = 2;
    op.execute = noop;
    const ff_op_decl* ops[] = {&op};
    ff_plugin_info info{sizeof(ff_plugin_info), FF_ABI_MAJOR, FF_ABI_MINOR, "future", "2", ops, 1};
    std::vector<OpInfo> read;
    ASSERT_EQ(read_plugin_info(&info, "future.so", read), "");
    ASSERT_EQ(read.size(), 1u);
    ASSERT_EQ(read[0].outputs.size(), 2u);
    EXPECT_EQ(read[0].outputs[1].name, "b");
    EXPECT_EQ(read[0].outputs[1].type, "json");
    ASSERT_EQ(read[0].params.size(), 2u);
    EXPECT_EQ(std::get<std::string>(*read[0].params[1].default_value), "y");
}

TEST(PluginLoader, PluginsOfAnOlderMinorVersionStillLoad) {
    // A plugin built against ABI 1.0 (before state_dir was appended to the host API) loads and
    // its ops run: the host API only grew.
    static_assert(FF_ABI_MINOR >= 1, "this test is about plugins older than the host");
    ff_op_decl op{};
    op.struct_size = sizeof(ff_op_decl);
    op.name = "OldTimer";
    op.category = "test";
    op.execute = noop;
    const ff_op_decl* ops[] = {&op};
    ff_plugin_info info{sizeof(ff_plugin_info), FF_ABI_MAJOR, 0, "old", "1", ops, 1};
    std::vector<OpInfo> read;
    EXPECT_EQ(read_plugin_info(&info, "old.so", read), "");
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].name, "OldTimer");
}

TEST(PluginLoader, PrepareAndReleaseAreReadFromAbi14PluginsOnly) {
    ff_op_decl op{};
    op.struct_size = sizeof(ff_op_decl);
    op.name = "Warmed";
    op.category = "test";
    op.execute = noop;
    op.prepare = noop;
    op.release = release_noop;
    const ff_op_decl* ops[] = {&op};
    ff_plugin_info info{sizeof(ff_plugin_info), FF_ABI_MAJOR, 4, "warm", "1", ops, 1};
    std::vector<OpInfo> read;
    ASSERT_EQ(read_plugin_info(&info, "warm.so", read), "");
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].prepare, &noop);
    EXPECT_EQ(read[0].release, &release_noop);
    // A 1.3 plugin's op decl ends before prepare: whatever lies there is never called.
    info.abi_minor = 3;
    read.clear();
    ASSERT_EQ(read_plugin_info(&info, "warm.so", read), "");
    EXPECT_EQ(read[0].prepare, nullptr);
    EXPECT_EQ(read[0].release, nullptr);
    // Nor from a 1.4 plugin whose decl is too small to hold it.
    info.abi_minor = 4;
    op.struct_size = offsetof(ff_op_decl, release);
    read.clear();
    ASSERT_EQ(read_plugin_info(&info, "warm.so", read), "");
    EXPECT_EQ(read[0].prepare, nullptr);
    EXPECT_EQ(read[0].release, nullptr);
}

TEST(PluginLoader, BadDeclarationsAreRefused) {
    ff_param_decl bad_default{sizeof(ff_param_decl), "n", FF_PARAM_INT, "many", 0, 9, nullptr, "", 0, nullptr};
    ff_param_decl no_choices{sizeof(ff_param_decl), "e", FF_PARAM_ENUM, nullptr, 0, -1, "", "", 0, nullptr};
    ff_op_decl op{};
    op.struct_size = sizeof(ff_op_decl);
    op.name = "Bad";
    op.execute = noop;
    op.params = &bad_default;
    op.param_count = 1;
    const ff_op_decl* ops[] = {&op};
    ff_plugin_info info{sizeof(ff_plugin_info), FF_ABI_MAJOR, FF_ABI_MINOR, "bad", "1", ops, 1};
    std::vector<OpInfo> read;
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read),
              "op 'Bad': param 'n': default 'many' must be an integer, got 'many'");
    op.params = &no_choices;
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read), "op 'Bad': enum param 'e' has no choices");

    // applies_when: conditions on an enum or bool declared before, with values it can take.
    ff_param_decl governed[] = {
        {sizeof(ff_param_decl), "model", FF_PARAM_ENUM, "a", 0, -1, "a|b", "", 0, nullptr},
        {sizeof(ff_param_decl), "n", FF_PARAM_INT, "1", 0, 9, nullptr, "", 0, "model=b"},
    };
    op.params = governed;
    op.param_count = 2;
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read), "");
    ASSERT_EQ(read.back().params[1].applies_when.size(), 1u);
    EXPECT_EQ(read.back().params[1].applies_when[0].values, std::vector<std::string>{"b"});
    const std::pair<const char*, const char*> bad_conditions[] = {
        {"model=c", "op 'Bad': param 'n': applies_when 'model=c': 'c' is not one of a|b"},
        {"mode=a", "op 'Bad': param 'n': applies_when 'mode=a': 'mode' is not a param declared before 'n'"},
        {"model", "op 'Bad': param 'n': applies_when 'model': 'model' is not PARAM=VALUE[|VALUE...]"},
        {"model=a, model=b", "op 'Bad': param 'n': applies_when 'model=a, model=b': 'model' appears twice"},
    };
    for (const auto& [condition, message] : bad_conditions) {
        governed[1].applies_when = condition;
        EXPECT_EQ(read_plugin_info(&info, "bad.so", read), message);
    }
    governed[1].applies_when = "model=a";
    governed[0].applies_when = "n=1"; // on a later param, and an int
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read),
              "op 'Bad': param 'model': applies_when 'n=1': 'n' is not a param declared before 'model'");
    governed[0].applies_when = nullptr;
    info.abi_minor = 2; // a 1.2 plugin's decls end before applies_when: never read
    governed[1].applies_when = "garbage";
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read), "");
    info.abi_minor = FF_ABI_MINOR;
    op.params = nullptr;
    op.param_count = 0;
    op.execute = nullptr;
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read), "op 'Bad': no execute function");
    info.struct_size = 8;
    EXPECT_EQ(read_plugin_info(&info, "bad.so", read),
              "ff_plugin_info.struct_size 8 is smaller than ABI 1.0's 44");
    EXPECT_EQ(read_plugin_info(nullptr, "bad.so", read), "'fieldflow_plugin' returned no plugin description");
}

} // namespace
} // namespace fieldflow::host
