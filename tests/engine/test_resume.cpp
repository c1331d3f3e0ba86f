// A trainer stopped at step k, its state passed through a checkpoint file's bytes and restored into
// a fresh trainer, continues as the uninterrupted run: same model at step N.
#include "fieldflow/engine/checkpoint_file.hpp"
#include "fieldflow/engine/splats.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine {
namespace {

using test::max_difference;

double model_difference(const Model& a, const Model& b) {
    return std::max(max_difference(a.mlp, b.mlp), max_difference(a.encoding_params, b.encoding_params));
}

// The state at `k`, through encode_checkpoint / decode_checkpoint (the bytes a node would store).
TrainerState through_checkpoint(const TrainerState& state, ModelKind kind, const ImageData& image) {
    Checkpoint c;
    c.kind = kind;
    c.trainer = state;
    c.image_width = image.width;
    c.image_height = image.height;
    return decode_checkpoint(encode_checkpoint(c), "test").trainer;
}

struct ResumeResult {
    double resumed_vs_straight = 0;   // the resumed run against the uninterrupted one
    double restarted_vs_straight = 0; // a run that kept the weights but lost step and moments
    Model straight, resumed;
};

ResumeResult resume_at(const ModelConfig& config, const TrainOptions& options, uint32_t k,
                       Device& device = test::device()) {
    const ImageData image = test::synthetic_image(40, 30);
    const ModelKind kind = config.encoding.kind == EncodingKind::coords ? ModelKind::siren : ModelKind::grid;
    Trainer straight(device, config, options, image);
    straight.train(options.steps);

    Trainer first(device, config, options, image);
    first.train(k);
    const TrainerState state = through_checkpoint(first.state(), kind, image);
    EXPECT_EQ(state.step, k);
    Trainer resumed(device, config, options, image, &state);
    EXPECT_EQ(resumed.step(), k);
    resumed.train(options.steps - k);
    EXPECT_EQ(resumed.step(), options.steps);
    EXPECT_FALSE(resumed.diverged());

    // The control: the same weights at step k, but a fresh step count and fresh Adam moments.
    Trainer restarted(device, config, options, image, &state.model);
    restarted.train(options.steps - k);

    ResumeResult r;
    r.straight = straight.model();
    r.resumed = resumed.model();
    r.resumed_vs_straight = model_difference(r.resumed, r.straight);
    r.restarted_vs_straight = model_difference(restarted.model(), r.straight);
    return r;
}

TEST(Resume, GridModelContinuesAsTheUninterruptedRun) {
    size_t messages = test::portable_device().validation_messages().size();
    TrainOptions o;
    o.batch = 512;
    o.steps = 80;
    o.seed = 11;
    // Grid gradients are summed by float atomics whose order varies between runs (see
    // Training.SameSeedSameResult), so the runs agree to rounding, not bit for bit; losing the
    // step count and moments instead moves the weights by far more. On the portable kernels on
    // every device: what a resume must carry is the same for both kernel paths, and on the tensor
    // cores fp16 activations grow the atomics' rounding to ~0.06 over these 80 steps (H100),
    // past a tolerance that keeps the test sharp.
    ResumeResult r = resume_at(test::default_config(10, 8), o, 33, test::portable_device());
    EXPECT_LT(r.resumed_vs_straight, test::portable_tolerances().resumed);
    // Fixed-point gradients' sums do not depend on the atomics' order: the resume is exact.
    if (test::portable_device().fixed_point_gradients()) EXPECT_EQ(r.resumed_vs_straight, 0.0);
    const double margin = 20;
    EXPECT_GT(r.restarted_vs_straight, margin * std::max(r.resumed_vs_straight, 1e-5))
        << "the control run is too close: the test could not tell a resume from a restart ("
        << r.restarted_vs_straight << " vs " << r.resumed_vs_straight << ")";
    test::expect_validation_clean(messages, test::portable_device());
}

// A trainer resumed from a state gives that state back bit for bit: the encoding's moments go
// into and out of the cells' records (kernels/src/field/encoding_state.hpp) a run of 2^18 cells at
// a time, and this grid (600 x 500 cells) takes two runs, the second a partial one.
TEST(Resume, StateRoundTripsThroughTheEncodingRecords) {
    size_t messages = test::portable_device().validation_messages().size();
    const ModelConfig config = test::default_config(600, 500);
    const ImageData image = test::synthetic_image(40, 30);
    TrainOptions o;
    o.batch = 256;
    o.steps = 3;
    const Model initial = Trainer(test::portable_device(), config, o, image).model();
    Trainer first(test::portable_device(), config, o, image);
    first.train(3);
    const TrainerState state = first.state();
    ASSERT_EQ(state.encoding_m.size(), size_t(600) * 500 * config.grid_channels);
    // Read back in the right place: a parameter moved exactly where its moment is not zero (three
    // steps touch a few thousand cells; eager Adam leaves the others, m = v = 0, where they were).
    size_t moved = 0, misplaced = 0;
    for (size_t i = 0; i < state.encoding_m.size(); ++i) {
        const bool changed = state.model.encoding_params[i] != initial.encoding_params[i];
        moved += changed;
        misplaced += changed != (state.encoding_m[i] != 0.0f);
    }
    ASSERT_GT(moved, 0u);
    EXPECT_EQ(misplaced, 0u);
    Trainer resumed(test::portable_device(), config, o, image, &state);
    const TrainerState again = resumed.state();
    EXPECT_EQ(again.step, state.step);
    EXPECT_EQ(again.encoding_m, state.encoding_m);
    EXPECT_EQ(again.encoding_v, state.encoding_v);
    EXPECT_EQ(again.model.encoding_params, state.model.encoding_params);
    // Training goes on from the resumed state as from the one it was taken from. This grid takes
    // lazy dense Adam, which keeps the parameters in the records while it trains (a resume must
    // put them there) and copies them out when they are read.
    EXPECT_EQ(resumed.encoding_optimizer(), "dense, lazy");
    first.train(2);
    resumed.train(2);
    const double apart = test::max_difference(first.model().encoding_params, resumed.model().encoding_params);
    EXPECT_LT(apart, test::portable_tolerances().resumed);
    if (test::portable_device().fixed_point_gradients()) EXPECT_EQ(apart, 0.0); // sums in any order
    test::expect_validation_clean(messages, test::portable_device());
}

TEST(Resume, HashGridContinuesThroughItsCheckpointFile) {
    // The hash tables and their Adam moments travel through the checkpoint file like the grid's;
    // touched-only Adam on the tables keeps its untouched rows' moments across the resume.
    size_t messages = test::device().validation_messages().size();
    TrainOptions o;
    o.batch = 512;
    o.steps = 60;
    o.seed = 5;
    o.grid_adam = GridAdam::sparse;
    ResumeResult r = resume_at(test::hash_test_config(), o, 25);
    EXPECT_LT(r.resumed_vs_straight, test::tolerances().resumed);
    if (test::device().fixed_point_gradients()) EXPECT_EQ(r.resumed_vs_straight, 0.0); // exact sums
    const double margin = test::on_tensor_cores() ? 5 : 20;
    EXPECT_GT(r.restarted_vs_straight, margin * std::max(r.resumed_vs_straight, 1e-5))
        << r.restarted_vs_straight << " vs " << r.resumed_vs_straight;
    EXPECT_EQ(r.resumed.config, test::hash_test_config());
    test::expect_validation_clean(messages);
}

TEST(Resume, SirenContinuesBitForBit) {
    // No grid, hence no float atomics: the MLP's gradient partials are summed in a fixed order,
    // so the resumed run must equal the uninterrupted one exactly.
    TrainOptions o;
    o.batch = 256;
    o.steps = 40;
    o.seed = 4;
    o.lr_mlp = 1e-3f;
    ResumeResult r = resume_at(siren_config(16, 2, 30.0f), o, 17);
    EXPECT_EQ(r.resumed.mlp, r.straight.mlp);
    EXPECT_GT(r.restarted_vs_straight, 0.0);
}

TEST(Resume, LearningRateScheduleFollowsTheRestoredStep) {
    // Restored past lr_decay_start, a trainer must go on at the decayed rate of its restored step
    // (a rate taken from step 0 would move the weights ~30x further in the last 15 steps).
    TrainOptions o;
    o.batch = 512;
    o.steps = 60;
    o.seed = 2;
    o.lr_decay_start = 0.2f;
    o.lr_final_scale = 0.01f;
    ResumeResult r = resume_at(test::default_config(10, 8), o, 45);
    EXPECT_LT(r.resumed_vs_straight, test::tolerances().resumed);
}

TEST(Resume, MismatchedStateIsRefusedWithAMessage) {
    const ImageData image = test::synthetic_image(24, 16);
    const ModelConfig config = test::default_config(6, 4);
    TrainOptions o;
    o.batch = 128;
    Trainer t(test::device(), config, o, image);
    t.train(3);
    const TrainerState good = t.state();
    auto message = [&](const ModelConfig& c, const TrainerState& s) -> std::string {
        try {
            Trainer(test::device(), c, o, image, &s);
        } catch (const EngineError& e) {
            return e.what();
        }
        return "(accepted)";
    };
    EXPECT_EQ(message(test::default_config(7, 4), good),
              "the resumed state's model's configuration differs from the training configuration");
    TrainerState short_m = good;
    short_m.mlp_m.pop_back();
    EXPECT_EQ(message(config, short_m), "the resumed state's MLP Adam m holds " +
                                            std::to_string(good.mlp_m.size() - 1) +
                                            " floats, the model needs " + std::to_string(good.mlp_m.size()));
    TrainerState long_grid_v = good;
    long_grid_v.encoding_v.push_back(0);
    EXPECT_NE(message(config, long_grid_v).find("encoding Adam v holds"), std::string::npos);
    EXPECT_EQ(message(config, good), "(accepted)");
}

TEST(Resume, SplatFitContinuesAsTheUninterruptedFit) {
    size_t messages = test::device().validation_messages().size();
    const ImageData image = test::synthetic_image(48, 40);
    SplatTrainOptions o;
    o.seed = 3;
    o.steps = 70;
    const SplatConfig config{.count = 120};
    SplatTrainer straight(test::device(), config, o, image);
    straight.train(o.steps);

    SplatTrainer first(test::device(), config, o, image);
    first.train(25);
    Checkpoint c;
    c.kind = ModelKind::splats;
    c.splats = first.state();
    c.image_width = image.width;
    c.image_height = image.height;
    const SplatTrainerState state = decode_checkpoint(encode_checkpoint(c), "test").splats;
    SplatTrainer resumed(test::device(), config, o, image, &state);
    EXPECT_EQ(resumed.step(), 25u);
    resumed.train(o.steps - 25);

    SplatTrainer restarted(test::device(), config, o, image, &state.model);
    restarted.train(o.steps - 25);

    const std::vector<float> want = straight.model().params;
    const double resumed_diff = max_difference(resumed.model().params, want);
    const double restarted_diff = max_difference(restarted.model().params, want);
    // Splat gradients are accumulated with float atomics too: agreement to rounding (positions
    // and Cholesky factors are in pixels, so the tolerance is relative to a pixel).
    EXPECT_LT(resumed_diff, 1e-3);
    EXPECT_GT(restarted_diff, 20 * std::max(resumed_diff, 1e-4));
    test::expect_validation_clean(messages);
}

} // namespace
} // namespace ff::engine
