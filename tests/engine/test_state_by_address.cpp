// The encoding's training state past one storage buffer's range (a 2^19-entry hash table's state
// is 270 MB; lavapipe's maxStorageBufferRange is 128 MB): the kernels then reach it by its device
// address. A device whose buffers are capped at 64 KB takes that path for states of a few records
// more, and gradients and training must come out as with the state in one buffer.
#include "test_support.hpp"

#include "fieldflow/engine/testing.hpp"

namespace ff::engine {
namespace {

constexpr uint64_t kCap = 65536;

// Portable kernels on both devices, as test_target_image.cpp says why: the comparison is then of
// the state's path alone.
Device& capped_device() {
    static Device d =
        Device::open("auto", DeviceOptions{.validation = true, .force_portable = true, .max_buffer_bytes = kCap});
    return d;
}

// Each cell's record holds at least its gradient, m, v and stamp in whole 16-byte words: 32 bytes
// for 2 features a cell.
uint64_t least_state_bytes(const Model& model, uint32_t features) {
    return model.encoding_params.size() / features * 32;
}

TEST(StateByAddress, GradientsMatchTheStateInOneBuffer) {
    const size_t messages = capped_device().validation_messages().size();
    const ModelConfig config = test::hash_test_config(); // 2,337 cells: at least 75 KB of records
    const Model model = test::random_model(config, 7);
    ASSERT_GT(least_state_bytes(model, config.encoding.hash.features), kCap);
    const test::Samples s = test::random_samples(300, config.output_dims, 11);
    const testing::ForwardBackward by_address =
        testing::forward_backward(capped_device(), model, s.uv, s.targets);
    const testing::ForwardBackward in_buffer =
        testing::forward_backward(test::portable_device(), model, s.uv, s.targets);
    ASSERT_EQ(by_address.grad_encoding.size(), in_buffer.grad_encoding.size());
    EXPECT_GT(test::max_difference(in_buffer.grad_encoding, std::vector<float>(in_buffer.grad_encoding.size())), 0.0)
        << "no encoding gradient to compare";
    EXPECT_LE(test::max_difference(by_address.grad_encoding, in_buffer.grad_encoding), 1e-6);
    EXPECT_LE(test::max_difference(by_address.grad_mlp, in_buffer.grad_mlp), 1e-6);
    EXPECT_NEAR(by_address.loss, in_buffer.loss, 1e-6 * in_buffer.loss);
    test::expect_validation_clean(messages, capped_device());
}

TEST(StateByAddress, TrainsAsTheStateInOneBuffer) {
    const size_t messages = capped_device().validation_messages().size();
    struct Case {
        const char* name;
        ModelConfig config;
        DenseAdam form;
    };
    // The hash grid (gradients as 64-bit fixed-point atomics where the device has them), the dense
    // grid's eager Adam, and its lazy form whose records also hold the parameters (the settle pass
    // moves them between the records and the model).
    const Case cases[] = {
        {"hash grid", test::hash_test_config(), DenseAdam::lazy},
        {"dense, eager", test::default_config(64, 48), DenseAdam::eager},
        {"dense, lazy", test::default_config(64, 48), DenseAdam::lazy},
    };
    const ImageData image = test::synthetic_image(96, 64); // 24 KB: the image in one buffer
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        TrainOptions o;
        o.batch = 256;
        o.steps = 40;
        o.dense_adam = c.form;
        Trainer in_buffer(test::portable_device(), c.config, o, image);
        Trainer by_address(capped_device(), c.config, o, image);
        ASSERT_TRUE(by_address.state_by_address());
        ASSERT_FALSE(in_buffer.state_by_address());
        ASSERT_EQ(by_address.encoding_optimizer(), in_buffer.encoding_optimizer());
        const Model start = in_buffer.model();
        in_buffer.train(o.steps);
        by_address.train(o.steps);
        const Model a = in_buffer.model(), b = by_address.model();
        const double same = test::portable_tolerances().same_seed;
        EXPECT_GT(test::max_difference(a.encoding_params, start.encoding_params), 100 * same) << "nothing learned";
        EXPECT_LE(test::max_difference(a.encoding_params, b.encoding_params), same);
        EXPECT_LE(test::max_difference(a.mlp, b.mlp), same);
        EXPECT_NEAR(by_address.full_image_mse(), in_buffer.full_image_mse(), 1e-4 * in_buffer.full_image_mse());
    }
    test::expect_validation_clean(messages, capped_device());
}

} // namespace
} // namespace ff::engine
