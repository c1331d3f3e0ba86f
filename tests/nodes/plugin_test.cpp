// The core plugin as the host sees it: one entry point, the expected ops with their flags.
#include "fake_host.hpp"

#include <fieldflow/versions.hpp>
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <map>

using ff::test::core_plugin;

TEST(CorePlugin, DescribesItsOps) {
    const ff_plugin_info& info = core_plugin().info();
    EXPECT_EQ(info.struct_size, sizeof(ff_plugin_info));
    EXPECT_EQ(info.abi_major, FF_ABI_MAJOR);
    EXPECT_EQ(info.abi_minor, FF_ABI_MINOR);
    EXPECT_STREQ(info.name, "core");
    EXPECT_STREQ(info.version, fieldflow::versions::kProgram); // the program's, not a literal

    const std::map<std::string, uint32_t> expected = {
        {"ReadImage", FF_OP_READS_OUTSIDE},  {"WriteImage", FF_OP_WRITES_OUTSIDE},
        {"WriteJson", FF_OP_WRITES_OUTSIDE}, {"Resize", FF_OP_PURE},
        {"BilinearBaseline", FF_OP_PURE},    {"Grayscale", FF_OP_PURE},
        {"Downsample", FF_OP_PURE},          {"Metrics", FF_OP_PURE},
        {"Compare", FF_OP_PURE},             {"Crop", FF_OP_PURE},
        {"ErrorMap", FF_OP_PURE},
        {"GaussianBlur", FF_OP_PURE},        {"UnsharpMask", FF_OP_PURE},
        {"Rotate", FF_OP_PURE},              {"Flip", FF_OP_PURE},
        {"Pad", FF_OP_PURE},                 {"WarpAffine", FF_OP_PURE},
        {"WarpPerspective", FF_OP_PURE},     {"Levels", FF_OP_PURE},
        {"Invert", FF_OP_PURE},              {"Normalize", FF_OP_PURE},
        {"Threshold", FF_OP_PURE},           {"BoxBlur", FF_OP_PURE},
        {"MedianBlur", FF_OP_PURE},          {"BilateralFilter", FF_OP_PURE},
        {"Denoise", FF_OP_PURE},             {"Morphology", FF_OP_PURE},
        {"Canny", FF_OP_PURE},               {"Sobel", FF_OP_PURE},
        {"Equalize", FF_OP_PURE},            {"Blend", FF_OP_PURE},
        {"Composite", FF_OP_PURE},           {"SplitChannels", FF_OP_PURE},
        {"MergeChannels", FF_OP_PURE},       {"DrawText", FF_OP_PURE},
        {"Statistics", FF_OP_PURE},          {"Histogram", FF_OP_PURE},
        {"ColorConvert", FF_OP_PURE},        {"Concat", FF_OP_PURE},
        {"MetricsTable", FF_OP_WRITES_OUTSIDE},
    };
    std::map<std::string, uint32_t> actual;
    for (uint32_t i = 0; i < info.op_count; ++i) {
        const ff_op_decl& op = *info.ops[i];
        actual[op.name] = op.flags;
        EXPECT_NE(op.execute, nullptr) << op.name;
        EXPECT_GT(std::string(op.doc).size(), 20u) << op.name << " needs a doc";
        for (uint32_t p = 0; p < op.param_count; ++p)
            EXPECT_GT(std::string(op.params[p].doc).size(), 3u) << op.name << "." << op.params[p].name;
    }
    EXPECT_EQ(actual, expected);
}

TEST(CorePlugin, ExportsOnlyTheEntryPoint) {
    void* handle = core_plugin().handle();
    EXPECT_NE(::dlsym(handle, "fieldflow_plugin"), nullptr);
    // The SDK and the shared helpers are linked in privately: none of their symbols may leak.
    EXPECT_EQ(::dlsym(handle, "_ZN2ff8Registry8instanceEv"), nullptr);
    EXPECT_EQ(::dlsym(handle, "_ZN2ff5nodes14auto_grid_sizeEjj"), nullptr);
}

TEST(CorePlugin, EntryPointIsRepeatable) {
    auto entry = reinterpret_cast<ff_plugin_entry_fn>(::dlsym(core_plugin().handle(), "fieldflow_plugin"));
    ASSERT_NE(entry, nullptr);
    const ff_plugin_info* first = entry();
    const ff_plugin_info* second = entry();
    EXPECT_EQ(first, second);
    EXPECT_EQ(first->op_count, second->op_count);
}
