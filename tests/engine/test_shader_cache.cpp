// The run-time shader compiler: SPIR-V cache hits, corrupted / unwritable cache, error reports.
#include "fieldflow/engine/engine.hpp"
#include "field/model_layout.hpp"
#include "vulkan/shader_compiler.hpp"
#include "known_devices.hpp"
#include "field/training_plan.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ff::engine {
namespace {
namespace fs = std::filesystem;

class ShaderCache : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("ff-spirv-test-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        const char* old = std::getenv("FIELDFLOW_CACHE_DIR");
        had_old_ = old != nullptr;
        if (old) old_ = old;
        setenv("FIELDFLOW_CACHE_DIR", dir_.c_str(), 1);
        unsetenv("FIELDFLOW_SPIRV_CACHE_DIR"); // the program sets it; these tests use the default
    }
    void TearDown() override {
        if (had_old_) setenv("FIELDFLOW_CACHE_DIR", old_.c_str(), 1);
        else unsetenv("FIELDFLOW_CACHE_DIR");
        std::error_code ec;
        fs::permissions(dir_, fs::perms::owner_all, ec);
        fs::remove_all(dir_, ec);
    }
    detail::Defines defines() const {
        ModelConfig c;
        c.grid_width = c.grid_height = 4;
        detail::Defines d = detail::model_defines(c);
        d.push_back({"SAMPLES_BLOCK_SHIFT", "5"}); // sample_indices.comp draws the samples (sampling.glsl)
        return d;
    }
    // The optimizer's defines as the engine plans them for the same model on lavapipe.
    detail::Defines optimizer_defines() const {
        ModelConfig c;
        c.grid_width = c.grid_height = 4;
        return detail::plan_training(test::lavapipe(), c, TrainOptions{}, 64, 48, 8).optimizer.defines;
    }
    fs::path dir_;
    std::string old_;
    bool had_old_ = false;
};

TEST_F(ShaderCache, SecondCompileHitsTheCache) {
    detail::CompileResult first = detail::compile_shader("render.comp", defines());
    EXPECT_FALSE(first.from_cache);
    ASSERT_FALSE(first.cache_path.empty());
    EXPECT_TRUE(fs::exists(first.cache_path));
    EXPECT_EQ(fs::path(first.cache_path).parent_path(), dir_);
    EXPECT_EQ(first.spirv.at(0), 0x07230203u);
    detail::CompileResult second = detail::compile_shader("render.comp", defines());
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.spirv, first.spirv);
    EXPECT_TRUE(second.warnings.empty());
    // Another configuration is another cache entry.
    detail::Defines other = defines();
    other.push_back({"EXTRA", "1"});
    detail::CompileResult third = detail::compile_shader("render.comp", other);
    EXPECT_FALSE(third.from_cache);
    EXPECT_NE(third.cache_path, first.cache_path);
}

TEST_F(ShaderCache, CorruptedFileIsRecompiledNotFatal) {
    detail::CompileResult first = detail::compile_shader("optimizer.comp", optimizer_defines());
    {
        std::fstream f(first.cache_path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(100);
        f.put('\x5a');
        f.put('\xa5');
    }
    detail::CompileResult again = detail::compile_shader("optimizer.comp", optimizer_defines());
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(again.spirv, first.spirv);
    ASSERT_EQ(again.warnings.size(), 1u);
    EXPECT_NE(again.warnings[0].find("corrupted"), std::string::npos) << again.warnings[0];
    // Rewritten: the next compile hits again.
    EXPECT_TRUE(detail::compile_shader("optimizer.comp", optimizer_defines()).from_cache);

    // Truncated to a few bytes: also a warning, not an error.
    fs::resize_file(first.cache_path, 10);
    detail::CompileResult truncated = detail::compile_shader("optimizer.comp", optimizer_defines());
    EXPECT_FALSE(truncated.from_cache);
    EXPECT_EQ(truncated.spirv, first.spirv);
}

TEST_F(ShaderCache, AnotherShadersFileUnderThisNameIsRecompiledNotServed) {
    detail::CompileResult optimizer = detail::compile_shader("optimizer.comp", optimizer_defines());
    detail::CompileResult render = detail::compile_shader("render.comp", defines());
    ASSERT_NE(optimizer.spirv, render.spirv);
    fs::copy_file(optimizer.cache_path, render.cache_path, fs::copy_options::overwrite_existing);
    detail::CompileResult again = detail::compile_shader("render.comp", defines());
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(again.spirv, render.spirv);
    ASSERT_EQ(again.warnings.size(), 1u);
    EXPECT_NE(again.warnings[0].find("holds another shader"), std::string::npos) << again.warnings[0];
    EXPECT_TRUE(detail::compile_shader("render.comp", defines()).from_cache); // rewritten
}

TEST_F(ShaderCache, AFolderOrFifoInTheFilesPlaceIsAWarningAndARecompile) {
    detail::CompileResult first = detail::compile_shader("render.comp", defines());
    fs::remove(first.cache_path);
    fs::create_directory(first.cache_path);
    detail::CompileResult dir = detail::compile_shader("render.comp", defines());
    EXPECT_EQ(dir.spirv, first.spirv);
    ASSERT_FALSE(dir.warnings.empty());
    EXPECT_NE(dir.warnings[0].find(first.cache_path + " is a folder"), std::string::npos) << dir.warnings[0];
    fs::remove(first.cache_path);
    ASSERT_EQ(::mkfifo(first.cache_path.c_str(), 0600), 0);
    detail::CompileResult fifo = detail::compile_shader("render.comp", defines()); // must not block
    EXPECT_EQ(fifo.spirv, first.spirv);
    ASSERT_FALSE(fifo.warnings.empty());
    EXPECT_NE(fifo.warnings[0].find("is a FIFO"), std::string::npos) << fifo.warnings[0];
}

TEST_F(ShaderCache, AnEmptySpirvCacheDirTurnsTheCacheOff) {
    setenv("FIELDFLOW_SPIRV_CACHE_DIR", "", 1);
    detail::CompileResult r = detail::compile_shader("render.comp", defines());
    EXPECT_TRUE(r.cache_path.empty());
    EXPECT_FALSE(fs::exists(dir_));
    const fs::path own = dir_ / "own";
    setenv("FIELDFLOW_SPIRV_CACHE_DIR", own.c_str(), 1);
    detail::CompileResult mine = detail::compile_shader("render.comp", defines());
    EXPECT_EQ(fs::path(mine.cache_path).parent_path(), own);
    unsetenv("FIELDFLOW_SPIRV_CACHE_DIR");
}

TEST_F(ShaderCache, UnwritableCacheIsAWarning) {
    if (::geteuid() == 0) {
        // root ignores permissions: make the cache path a file, which no folder can be created in
        std::ofstream(dir_.string()) << "not a folder";
    } else {
        fs::create_directories(dir_);
        fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
    }
    detail::CompileResult r = detail::compile_shader("sample_indices.comp", defines());
    EXPECT_FALSE(r.from_cache);
    EXPECT_EQ(r.spirv.at(0), 0x07230203u);
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_TRUE(r.cache_path.empty());
    std::error_code ec;
    fs::remove(dir_, ec);
}

TEST_F(ShaderCache, CompileErrorReportsTheSourceLine) {
    const char* broken =
        "#version 450\n"
        "#extension GL_GOOGLE_include_directive : require\n"
        "#include \"common.glsl\"\n"
        "layout(local_size_x = 1) in;\n"
        "void main() {\n"
        "    float oops = undefined_thing * 2.0;\n"
        "}\n";
    try {
        detail::compile_shader("broken.comp", defines(), broken);
        FAIL() << "the broken shader compiled";
    } catch (const EngineError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("broken.comp:6"), std::string::npos) << what;
        EXPECT_NE(what.find("float oops = undefined_thing * 2.0;"), std::string::npos) << what;
    }
}

TEST_F(ShaderCache, MissingDefinesAreACompileError) {
    try {
        detail::compile_shader("render.comp", {});
        FAIL();
    } catch (const EngineError& e) {
        EXPECT_NE(std::string(e.what()).find("configuration defines are missing"), std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace ff::engine
