// The neural plugin's pure pieces: training schedule, Infer's size rule, base64, the report page,
// the training log, snapshot discovery, the feature-grid picture and Train's checkpoint files.
#include "test_files.hpp"
#include "background_writer.hpp"
#include "base64.hpp"
#include "block_windows.hpp"
#include "codec_baselines.hpp"
#include "cpu_budget.hpp"
#include "model_alternative.hpp"
#include "neural_images.hpp"
#include "output_size.hpp"
#include "png_size.hpp"
#include "png_thumbnail.hpp"
#include "report_crops.hpp"
#include "report_notes.hpp"
#include "report_page.hpp"
#include "report_rate_plot.hpp"
#include "report_views.hpp"
#include "metrics/error_map.hpp"
#include "snapshot_files.hpp"
#include "training_checkpoint.hpp"
#include "training_log.hpp"
#include "training_progress_text.hpp"
#include "train_params.hpp"
#include "training_estimate.hpp"
#include "training_schedule.hpp"

#include <fieldflow/engine/model_file.hpp>
#include <fieldflow/node.hpp>

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
using ff::test::read_text;
using namespace ff::neural;

namespace {

fs::path fresh_folder(const std::string& name) { return ff::test::fresh_folder("ff_neural_parts", name); }

// Snapshots close together (steps 1, 10, 100) must not wait for each other's encoding: jobs run
// side by side up to the writer's limit, every file is written, and an encoding error reaches the
// owner at finish(). The first jobs wait on a sign from the test; a post that blocked on them
// would leave `posted` unset (the bound is a failure, not a sleep).
TEST(BackgroundWriter, JobsRunSideBySideAndAllFinish) {
    const fs::path dir = fresh_folder("writer");
    std::promise<void> release;
    std::shared_future<void> go = release.get_future().share();
    BackgroundWriter writer;
    auto posted = std::async(std::launch::async, [&] {
        for (size_t i = 0; i + 1 < BackgroundWriter::kMaxJobs; ++i)
            writer.post([go, path = dir / ("held" + std::to_string(i) + ".txt")] {
                go.wait();
                return std::vector<EncodedFile>{{path, "held"}};
            });
    });
    const bool posted_while_held = posted.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
    release.set_value(); // whatever happened, so that nothing is left waiting
    ASSERT_TRUE(posted_while_held) << "post waited for a job still encoding";
    writer.post([path = dir / "last.txt"] { return std::vector<EncodedFile>{{path, "last"}}; });
    writer.finish();
    for (size_t i = 0; i + 1 < BackgroundWriter::kMaxJobs; ++i)
        EXPECT_EQ(read_text(dir / ("held" + std::to_string(i) + ".txt")), "held");
    EXPECT_EQ(read_text(dir / "last.txt"), "last");

    // A failed job's error surfaces from the next post() when the job has already ended, else
    // from finish(); which one is a race, so either may throw. finish() rethrows without waiting
    // for the job after the failed one, which may still be encoding when this test returns: it
    // captures nothing of the test's frame.
    writer.post([]() -> std::vector<EncodedFile> { throw std::runtime_error("encoder broke"); });
    EXPECT_THROW(
        {
            writer.post([path = dir / "after.txt"] { return std::vector<EncodedFile>{{path, "after"}}; });
            writer.finish();
        },
        std::runtime_error);
}

// A CPU Vulkan driver takes the graph's CPU budget (cpu_steps, cpu_batch) and says so; a GPU, a
// budget of 0 and a run already within it are left as given.
TEST(CpuBudget, CapsStepsAndBatchOnlyOnACpuDriverAndSaysSo) {
    TrainParams p;
    p.options.steps = 40000;
    p.options.batch = 16384;
    p.cpu_steps = 2000;
    p.cpu_batch = 2048;
    TrainParams gpu = p;
    EXPECT_FALSE(fit_to_cpu(gpu, "discrete", "NVIDIA H100"));
    EXPECT_EQ(gpu.options.steps, 40000u);
    TrainParams off = p;
    off.cpu_steps = 0;
    EXPECT_FALSE(fit_to_cpu(off, "cpu", "llvmpipe"));
    EXPECT_EQ(off.options.batch, 16384u);
    TrainParams within = p;
    within.options.steps = 500;
    within.options.batch = 1024;
    EXPECT_FALSE(fit_to_cpu(within, "cpu", "llvmpipe"));
    EXPECT_EQ(within.options.steps, 500u);

    std::optional<std::string> said = fit_to_cpu(p, "cpu", "llvmpipe");
    ASSERT_TRUE(said);
    EXPECT_EQ(p.options.steps, 2000u);
    EXPECT_EQ(p.options.batch, 2048u);
    EXPECT_NE(said->find("'llvmpipe' is a CPU Vulkan driver: training 2000 steps at batch 2048 "
                         "instead of 40000 at 16384 (160x the work"), std::string::npos) << *said;
    EXPECT_NE(said->find("--set cpu_steps=0"), std::string::npos) << *said;
    // What was asked stays, for the report's budget line.
    EXPECT_EQ(p.asked_steps, 40000u);
    EXPECT_EQ(p.asked_batch, 16384u);
    EXPECT_EQ(p.cpu_budget_note, *said);
    EXPECT_EQ(within.asked_steps, 0u); // nothing cut
}

TEST(CpuBudget, SnapshotStepsPastTheNewEndAreLeftOutAndTheListStaysExplicit) {
    TrainParams p;
    p.options.steps = 40000;
    p.options.batch = 1024;
    p.cpu_steps = 100;
    p.snapshot_steps = {0, 50, 100, 5000, 30000};
    std::optional<std::string> said = fit_to_cpu(p, "cpu", "llvmpipe");
    ASSERT_TRUE(said);
    EXPECT_EQ(p.snapshot_steps, (std::vector<int64_t>{0, 50, 100}));
    EXPECT_NE(said->find("snapshot steps past step 100 are left out"), std::string::npos) << *said;
    TrainParams late = p;
    late.options.steps = 40000;
    late.snapshot_steps = {5000, 30000};
    ASSERT_TRUE(fit_to_cpu(late, "cpu", "llvmpipe"));
    EXPECT_EQ(late.snapshot_steps, (std::vector<int64_t>{100})); // empty would mean the default list
}

} // namespace

// ---- schedule ----

TEST(TrainingSchedule, DefaultSnapshotsAreLogSpacedAndEndAtTheLastStep) {
    EXPECT_EQ(default_snapshot_steps(40000), (std::vector<uint32_t>{1, 10, 100, 1000, 10000, 40000}));
    EXPECT_EQ(default_snapshot_steps(1000), (std::vector<uint32_t>{1, 10, 100, 1000}));
    EXPECT_EQ(default_snapshot_steps(1), (std::vector<uint32_t>{1}));
    EXPECT_EQ(default_snapshot_steps(250), (std::vector<uint32_t>{1, 10, 100, 250}));
}

TEST(TrainingSchedule, RequestedStepsAreSortedDeduplicatedAndChecked) {
    EXPECT_EQ(resolve_snapshot_steps({500, 0, 20, 20}, 500), (std::vector<uint32_t>{0, 20, 500}));
    EXPECT_EQ(resolve_snapshot_steps({}, 100), default_snapshot_steps(100));
    try {
        resolve_snapshot_steps({10, 600}, 500);
        FAIL() << "a step past the end was accepted";
    } catch (const ff::ParamError& e) {
        EXPECT_EQ(e.param, "snapshot_steps");
        EXPECT_NE(std::string(e.what()).find("600"), std::string::npos);
    }
}

TEST(TrainingSchedule, StopsAtEverySnapshotAndEvalStepAndNeverOvershoots) {
    TrainingSchedule s{2500, {1, 10, 100, 1000, 2500}, 700};
    std::vector<uint32_t> stops;
    for (uint32_t done = 0; done < s.steps;) {
        uint32_t next = s.next_stop(done, 1000);
        ASSERT_GT(next, done);
        ASSERT_LE(next - done, 1000u);
        stops.push_back(done = next);
    }
    EXPECT_EQ(stops, (std::vector<uint32_t>{1, 10, 100, 700, 1000, 1400, 2100, 2500}));
    EXPECT_TRUE(s.is_eval(1400));
    EXPECT_TRUE(s.is_eval(10));
    EXPECT_TRUE(s.is_eval(2500));
    EXPECT_FALSE(s.is_eval(1500));
    EXPECT_TRUE(s.is_snapshot(100));
    EXPECT_FALSE(s.is_snapshot(700));
    // Small chunks: every stop still lands on the snapshots.
    TrainingSchedule t{30, {10, 30}, 0};
    std::vector<uint32_t> small;
    for (uint32_t done = 0; done < t.steps;) small.push_back(done = t.next_stop(done, 7));
    EXPECT_EQ(small, (std::vector<uint32_t>{7, 10, 17, 24, 30}));
}

TEST(TrainingSchedule, EvaluationsCountEachEvalStepOnce) {
    // The CPU budget's 2,000 steps at eval_interval 1,000: 1, 10, 100, 1,000 and 2,000.
    EXPECT_EQ((TrainingSchedule{2000, default_snapshot_steps(2000), 1000}.evaluations()), 5u);
    EXPECT_EQ((TrainingSchedule{2000, default_snapshot_steps(2000), 0}.evaluations()), 5u);
    // 40,000 steps: 40 on the interval, and the snapshots 1, 10 and 100 between them.
    EXPECT_EQ((TrainingSchedule{40000, default_snapshot_steps(40000), 1000}.evaluations()), 43u);
    EXPECT_EQ((TrainingSchedule{2500, {1, 10, 100, 1000, 2500}, 700}.evaluations()), 8u); // 700, 1,400, 2,100
    // Step 0 measures nothing; the last step is always measured.
    EXPECT_EQ((TrainingSchedule{100, {0}, 0}.evaluations()), 1u);
    EXPECT_EQ((TrainingSchedule{100, {0, 30}, 0}.evaluations()), 2u);
    EXPECT_EQ((TrainingSchedule{0, {}, 0}.evaluations()), 0u);
    // The count is the eval steps a run stops at.
    const TrainingSchedule s{2500, {1, 10, 100, 1000, 2500}, 700};
    uint32_t walked = 0;
    for (uint32_t step = 1; step <= s.steps; ++step) walked += s.is_eval(step);
    EXPECT_EQ(s.evaluations(), walked);
}

// The estimate counts the full-image evaluations as well as the steps: its time grows with their
// number and with the image's pixels, and its note says what it counts.
TEST(TrainingEstimate, CountsTheFullImageEvaluations) {
    ff::engine::DeviceInfo cpu;
    cpu.name = "llvmpipe";
    cpu.type = "cpu";
    TrainParams p; // compare_models' SIREN at its CPU budget, which measures its PSNR only at the end
    p.choice = ModelChoice::siren;
    p.model.hidden_width = 128;
    p.model.hidden_layers = 6;
    p.options.steps = 100;
    p.options.batch = 512;
    p.snapshot_steps = {100};
    p.eval_interval = 0;
    EXPECT_EQ(estimated_evaluations(p), 1u);
    const TrainingSeconds once = estimated_training_time(p, cpu);
    EXPECT_GT(once.fixed, 0);
    EXPECT_GT(once.per_megapixel, 0);
    const uint64_t leuven = 751 * 563;
    EXPECT_GT(once.for_pixels(2 * leuven), once.for_pixels(leuven));
    // On the CPU driver a SIREN's evaluation of leuvenA costs over half what its 100 steps do
    // (149.0 s against 268.7 s, training_estimate.cpp): an estimate without it is far too low.
    EXPECT_GT(once.for_pixels(leuven), 1.5 * once.fixed);

    TrainParams often = p;
    often.eval_interval = 10;
    EXPECT_EQ(estimated_evaluations(often), 10u);
    const TrainingSeconds ten = estimated_training_time(often, cpu);
    EXPECT_DOUBLE_EQ(ten.fixed, once.fixed);
    EXPECT_NEAR(ten.per_megapixel, 10 * once.per_megapixel, 1e-9 * ten.per_megapixel);

    const TrainingEstimate known = estimate_training(p, cpu, leuven);
    EXPECT_NEAR(known.seconds, once.for_pixels(leuven), 1e-9);
    EXPECT_GT(estimate_training(often, cpu, leuven).seconds, known.seconds);
    EXPECT_NE(known.text.find("(training and 1 full-image evaluation; a rough figure from measured rates)"),
              std::string::npos) << known.text;
    // Before the image is known (`fieldflow check`): the steps, plus the evaluations a megapixel.
    const TrainingEstimate unknown = estimate_training(often, cpu, 0);
    EXPECT_LT(unknown.seconds, 0);
    EXPECT_NE(unknown.text.find(" plus "), std::string::npos) << unknown.text;
    EXPECT_NE(unknown.text.find(" a megapixel of the image on llvmpipe"), std::string::npos) << unknown.text;
    EXPECT_NE(unknown.text.find("(training and 10 full-image evaluations;"), std::string::npos) << unknown.text;

    // A splat model's evaluations add to its per-megapixel cost.
    TrainParams splats;
    splats.choice = ModelChoice::splats;
    splats.options.steps = 50;
    splats.snapshot_steps = {50};
    TrainParams splats_often = splats;
    splats_often.eval_interval = 5;
    EXPECT_EQ(estimated_training_time(splats, cpu).fixed, 0);
    EXPECT_GT(estimated_training_time(splats_often, cpu).per_megapixel,
              estimated_training_time(splats, cpu).per_megapixel);
}

TEST(TrainingSchedule, ChunkSizeFollowsTheMeasuredRate) {
    EXPECT_EQ(chunk_size(0, 0.5, 10, 1000), 10u);    // nothing measured yet
    EXPECT_EQ(chunk_size(100, 0.5, 10, 1000), 50u);  // 0.5 s at 100 steps/s
    EXPECT_EQ(chunk_size(1e6, 0.5, 10, 1000), 1000u);
    EXPECT_EQ(chunk_size(0.1, 0.5, 10, 1000), 1u);
}

// ---- Infer's output size ----

TEST(InferOutputSize, Rules) {
    auto size = [](int64_t w, int64_t h, double s) {
        OutputSize o = infer_output_size(w, h, s, 751, 563);
        return std::make_pair(o.width, o.height);
    };
    EXPECT_EQ(size(0, 0, 0), std::make_pair(751u, 563u));
    EXPECT_EQ(size(1600, 1100, 0), std::make_pair(1600u, 1100u));
    EXPECT_EQ(size(1502, 0, 0), std::make_pair(1502u, 1126u));
    EXPECT_EQ(size(0, 100, 0), std::make_pair(133u, 100u)); // 751 * 100 / 563 = 133.4
    EXPECT_EQ(size(0, 0, 2), std::make_pair(1502u, 1126u));
    EXPECT_EQ(size(0, 0, 0.001), std::make_pair(1u, 1u));
}

TEST(InferOutputSize, ConflictsAndOversizeAreParamErrors) {
    try {
        infer_output_size(100, 0, 2.0, 751, 563);
        FAIL();
    } catch (const ff::ParamError& e) {
        EXPECT_EQ(e.param, "scale");
    }
    EXPECT_THROW(infer_output_size(65536, 65536, 0, 751, 563), ff::ParamError);
    EXPECT_THROW(infer_output_size(0, 0, 64, 65536, 65536), ff::ParamError);
    EXPECT_THROW(infer_output_size(-1, 0, 0, 751, 563), ff::ParamError);
}

// ---- base64 and the page ----

TEST(Base64, MatchesRfc4648Vectors) {
    auto b64 = [](const std::string& s) {
        return base64_encode(std::span(reinterpret_cast<const unsigned char*>(s.data()), s.size()));
    };
    EXPECT_EQ(b64(""), "");
    EXPECT_EQ(b64("f"), "Zg==");
    EXPECT_EQ(b64("fo"), "Zm8=");
    EXPECT_EQ(b64("foo"), "Zm9v");
    EXPECT_EQ(b64("foob"), "Zm9vYg==");
    EXPECT_EQ(b64("fooba"), "Zm9vYmE=");
    EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
}

TEST(ReportPage, EmbedsEveryImageAndEscapesText) {
    ReportPage page;
    page.title = "Lake <test> & \"friends\"";
    PngBytes a{1, 2, 3}, b{4, 5, 6, 7};
    page.images = {{"Ground truth", a, std::nullopt, std::nullopt}, {"Learned", b, 24.5678, 0.81234}};
    page.snapshots = {{1, a, b, {}, {}}, {10, b, std::nullopt, {}, {}}};
    page.quality = {{"PSNR, learned", "24.57 dB"}};
    page.training = {{"Device", "llvmpipe <cpu>"}};
    std::string html = render_report_html(page);
    EXPECT_NE(html.find("<title>Lake &lt;test&gt; &amp; &quot;friends&quot;</title>"), std::string::npos);
    EXPECT_EQ(html.find("<test>"), std::string::npos);
    EXPECT_NE(html.find("data:image/png;base64,AQID"), std::string::npos); // {1,2,3}
    EXPECT_NE(html.find("data:image/png;base64,BAUGBw=="), std::string::npos);
    EXPECT_NE(html.find("PSNR 24.57 dB"), std::string::npos);
    EXPECT_NE(html.find("SSIM 0.8123"), std::string::npos);
    EXPECT_NE(html.find("<th>Step 1</th><th>Step 10</th>"), std::string::npos);
    EXPECT_NE(html.find("llvmpipe &lt;cpu&gt;"), std::string::npos);
    // 2 side-by-side images + 3 snapshot images (one snapshot lacks its feature grid); the A/B
    // view reuses the side-by-side ones instead of embedding them again.
    size_t count = 0;
    for (size_t at = 0; (at = html.find("<img src=\"data:", at)) != std::string::npos; ++at) ++count;
    EXPECT_EQ(count, 5u);
    EXPECT_NE(html.find("data-view=\"0\""), std::string::npos);
    EXPECT_NE(html.find("id=\"ab-split\""), std::string::npos);
    // Self-contained: nothing is fetched from elsewhere.
    EXPECT_EQ(html.find("http"), std::string::npos);
    EXPECT_EQ(html.find("src=\"/"), std::string::npos);
}

TEST(ReportPage, SnapshotsLinkToTheirFullSizeFiles) {
    ReportPage page;
    PngBytes a{1, 2, 3};
    ReportSnapshot shot{10, a, a, {}, {}};
    shot.prediction_href = "snapshots/prediction_at_10.png";
    shot.feature_href = "snaps & co/feature_at_10.png";
    page.snapshots = {shot, {20, a, std::nullopt, {}, {}}};
    std::string html = render_report_html(page);
    EXPECT_NE(html.find("<a href=\"snapshots/prediction_at_10.png\"><img "), std::string::npos);
    EXPECT_NE(html.find("<a href=\"snaps &amp; co/feature_at_10.png\"><img "), std::string::npos);
    size_t links = 0;
    for (size_t at = 0; (at = html.find("<a href=", at)) != std::string::npos; ++at) ++links;
    EXPECT_EQ(links, 2u); // the step-20 snapshot has no files to link to
}

// Two regions where learned is closer (by 60 and 20 levels), one where bilinear is (by 40) and
// one where both are equally wrong: the crops are learned's two best regions, largest gain first,
// then bilinear's one (a tie is neither's), labelled so, at full resolution, with the other
// images' pixels and PSNRs too.
TEST(ReportViews, CropsShowWhereLearnedWinsMostAndWhereBilinearDoes) {
    ReportImages images;
    images.truth = cv::Mat(480, 640, CV_8UC3, cv::Scalar(100, 120, 140));
    images.bilinear = images.truth.clone();
    images.learned = images.truth.clone();
    images.bilinear(cv::Rect(320, 160, 160, 160)).setTo(cv::Scalar(160, 120, 140));  // 60 off
    images.learned(cv::Rect(0, 320, 160, 160)).setTo(cv::Scalar(140, 120, 140));     // 40 off
    images.bilinear(cv::Rect(480, 0, 160, 160)).setTo(cv::Scalar(120, 120, 140));    // 20 off
    images.bilinear(cv::Rect(160, 0, 160, 160)).setTo(cv::Scalar(100, 200, 140));    // both 80 off
    images.learned(cv::Rect(160, 0, 160, 160)).setTo(cv::Scalar(100, 200, 140));
    cv::Mat other = images.truth.clone();
    other(cv::Rect(0, 0, 640, 240)).setTo(cv::Scalar(110, 120, 140)); // 10 off in the top half
    images.others.push_back({"JPEG", other});
    images.bilinear_error = ff::metrics::absolute_error(images.truth, images.bilinear);
    images.learned_error = ff::metrics::absolute_error(images.truth, images.learned);
    ASSERT_EQ(crop_side(images.truth.size()), 160);
    const std::vector<ReportCrop> crops = regions_where_each_wins(images, 160, 2, block_squared_errors(images, kWinBlock));
    ASSERT_EQ(crops.size(), 3u);
    EXPECT_EQ(cv::Point(crops[0].x, crops[0].y), cv::Point(320, 160));
    EXPECT_EQ(cv::Point(crops[1].x, crops[1].y), cv::Point(480, 0));
    EXPECT_EQ(cv::Point(crops[2].x, crops[2].y), cv::Point(0, 320));
    EXPECT_TRUE(crops[0].learned_wins);
    EXPECT_TRUE(crops[1].learned_wins);
    EXPECT_FALSE(crops[2].learned_wins);
    EXPECT_LT(crops[0].bilinear_psnr, crops[0].learned_psnr);
    EXPECT_GT(crops[2].bilinear_psnr, crops[2].learned_psnr);
    ASSERT_EQ(crops[0].panels.size(), 4u);
    EXPECT_EQ(crops[0].panels[3].label, "JPEG");
    EXPECT_FALSE(crops[0].panels[0].psnr); // the ground truth has none
    EXPECT_NEAR(*crops[1].panels[3].psnr, 20 * std::log10(255.0 / std::sqrt(100.0 / 3)), 1e-9);
    const cv::Mat pixels = cv::imdecode(crops[0].panels[1].png, cv::IMREAD_COLOR); // BGR
    ASSERT_EQ(pixels.size(), cv::Size(160, 160));
    EXPECT_EQ(pixels.at<cv::Vec3b>(10, 10), cv::Vec3b(140, 120, 160));
    EXPECT_EQ(crop_side(cv::Size(96, 72)), 36); // room for 2x2 regions
    const std::string html = crops_section(crops);
    EXPECT_NE(html.find("<b>Bilinear wins most here</b>: bilinear "), std::string::npos);
    EXPECT_NE(html.find("<b>Learned wins most here</b>: bilinear "), std::string::npos);
    EXPECT_EQ(html.find("none of the image's blocks"), std::string::npos);
}

// Bilinear closer in one small patch only (a 5x5 patch inside one 8x8 block of a 32x32 image, whose
// 16-pixel tiles learned wins all of): the bilinear-wins crop is that block, and its scores, measured
// on the crop, put bilinear ahead. With learned closer everywhere, the page says bilinear wins nowhere.
TEST(ReportViews, BilinearCropFindsAWinSmallerThanATile) {
    ReportImages images;
    images.truth = cv::Mat(32, 32, CV_8UC3, cv::Scalar(100, 120, 140));
    images.bilinear = images.truth + cv::Scalar(2, 0, 0); // 2 levels off everywhere
    images.learned = images.truth + cv::Scalar(1, 0, 0);  // 1 level off everywhere...
    const cv::Rect patch(17, 10, 5, 5);
    images.bilinear(patch).setTo(cv::Scalar(100, 120, 140)); // ...but in the patch bilinear is exact
    images.learned(patch).setTo(cv::Scalar(104, 120, 140));  // and learned 4 off
    images.bilinear_error = ff::metrics::absolute_error(images.truth, images.bilinear);
    images.learned_error = ff::metrics::absolute_error(images.truth, images.learned);
    const int side = crop_side(images.truth.size());
    ASSERT_EQ(side, 16);
    const std::vector<ReportCrop> crops = regions_where_each_wins(images, side, 2, block_squared_errors(images, kWinBlock));
    std::vector<ReportCrop> bilinear_wins;
    for (const ReportCrop& c : crops)
        if (!c.learned_wins) bilinear_wins.push_back(c);
    ASSERT_EQ(bilinear_wins.size(), 1u);
    const ReportCrop& c = bilinear_wins[0];
    const cv::Rect rect(c.x, c.y, c.width, c.height);
    EXPECT_EQ(rect & patch, patch) << rect; // covers the patch
    EXPECT_EQ(rect, cv::Rect(16, 8, 8, 8));
    EXPECT_NEAR(c.bilinear_psnr, cv::PSNR(images.truth(rect), images.bilinear(rect)), 1e-9);
    EXPECT_NEAR(c.learned_psnr, cv::PSNR(images.truth(rect), images.learned(rect)), 1e-9);
    EXPECT_GT(c.bilinear_psnr, c.learned_psnr);
    const std::string html = crops_section(crops);
    char scores[96];
    std::snprintf(scores, sizeof scores, "<b>Bilinear wins most here</b>: bilinear %.2f dB, learned %.2f dB",
                  c.bilinear_psnr, c.learned_psnr);
    EXPECT_NE(html.find(scores), std::string::npos) << html.substr(0, 2000);

    images.learned(patch).setTo(cv::Scalar(100, 120, 140)); // learned exact there too
    images.learned_error = ff::metrics::absolute_error(images.truth, images.learned);
    const std::vector<ReportCrop> none = regions_where_each_wins(images, side, 2, block_squared_errors(images, kWinBlock));
    for (const ReportCrop& n : none) EXPECT_TRUE(n.learned_wins);
    EXPECT_NE(crops_section(none).find("none of the image's blocks"), std::string::npos);
}

// The windows follow the cluster: a 3x3 cluster amid negative scores gives a 3x3 window; a lone
// positive block amid zeros (every window holding it ties) gives the largest window, centred on it
// as far as the grid allows; the next window overlaps none before it, and none sums to 0 or less.
TEST(BlockWindows, SizedToTheClusterCentredOnItAndNonOverlapping) {
    cv::Mat score(10, 12, CV_64FC1, cv::Scalar(-1));
    score(cv::Rect(6, 2, 3, 3)).setTo(5);
    score.at<double>(8, 1) = 2;
    std::vector<cv::Rect> windows = best_block_windows(score, 6, 3);
    ASSERT_EQ(windows.size(), 2u);
    EXPECT_EQ(windows[0], cv::Rect(6, 2, 3, 3));
    EXPECT_EQ(windows[1], cv::Rect(1, 8, 1, 1));
    EXPECT_TRUE(best_block_windows(cv::Mat(4, 4, CV_64FC1, cv::Scalar(0)), 4, 2).empty());

    cv::Mat lone(10, 10, CV_64FC1, cv::Scalar(0));
    lone.at<double>(4, 5) = 1;
    windows = best_block_windows(lone, 3, 1);
    ASSERT_EQ(windows.size(), 1u);
    EXPECT_EQ(windows[0], cv::Rect(4, 3, 3, 3));
}

// The 8x8 blocks each image is closer in, and the win map's colours at either end and between.
TEST(ReportViews, BlockWinsCountTheBlocksEachImageIsCloserIn) {
    ReportImages images;
    images.truth = cv::Mat(16, 35, CV_8UC3, cv::Scalar(100, 100, 100)); // 4x2 whole blocks
    images.bilinear = images.truth.clone();
    images.learned = images.truth.clone();
    images.learned(cv::Rect(0, 0, 8, 8)).setTo(cv::Scalar(101, 100, 100));
    images.bilinear(cv::Rect(8, 0, 16, 8)).setTo(cv::Scalar(103, 100, 100));
    const auto [learned, bilinear] = block_wins(block_squared_errors(images, 8));
    EXPECT_DOUBLE_EQ(learned, 2.0 / 8);
    EXPECT_DOUBLE_EQ(bilinear, 1.0 / 8);
    EXPECT_EQ(win_colour(0), cv::Vec3b(255, 255, 255));
    EXPECT_EQ(win_colour(1), cv::Vec3b(51, 195, 51));
    EXPECT_EQ(win_colour(-5), cv::Vec3b(195, 51, 195));
}

// The plot holds each series (a polyline for a curve, a marked point otherwise) and its legend,
// no script and nothing fetched; no points, no plot.
TEST(RatePlot, DrawsCurvesAndPointsAsInlineSvg) {
    const std::string svg = rate_plot_svg({{"JPEG", "#d95f02", {{1000, 25, "quality 10"}, {5000, 32, "quality 60"}}, true},
                                           {"learned model", "#7570b3", {{3000, 29.5, "model file"}}, false}});
    EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
    EXPECT_NE(svg.find("<polyline"), std::string::npos);
    EXPECT_NE(svg.find("data-name=\"learned model\""), std::string::npos);
    EXPECT_NE(svg.find(">model file</text>"), std::string::npos);
    EXPECT_NE(svg.find("learned model, model file: 3.0 kB, 29.50 dB"), std::string::npos);
    EXPECT_EQ(svg.find("<script"), std::string::npos);
    EXPECT_EQ(svg.find("http"), std::string::npos);
    EXPECT_EQ(rate_plot_svg({{"JPEG", "#000", {}, true}}), "");
}

TEST(ReportViews, ViewsKeepSmallImagesAndScaleLargeOnesByTheirLongerSide) {
    const cv::Mat small(300, 200, CV_8UC3, cv::Scalar::all(7));
    EXPECT_EQ(view_of(small, 512).data, small.data);
    const cv::Mat large(1000, 3000, CV_8UC3, cv::Scalar::all(9));
    const cv::Mat view = view_of(large, 1024);
    EXPECT_EQ(view.size(), cv::Size(1024, 341));
    EXPECT_EQ(view.at<cv::Vec3b>(100, 100), cv::Vec3b(9, 9, 9));
}

// ---- codecs at the model's bytes ----

// OpenCV's encode of `rgb8` at `quality`, as the baseline makes it (JPEG: optimised Huffman tables).
std::vector<unsigned char> opencv_encode(const cv::Mat& rgb8, Codec codec, int quality) {
    cv::Mat bgr;
    cv::cvtColor(rgb8, bgr, cv::COLOR_RGB2BGR);
    std::vector<unsigned char> out;
    const std::vector<int> params = codec == Codec::jpeg
                                        ? std::vector<int>{cv::IMWRITE_JPEG_QUALITY, quality, cv::IMWRITE_JPEG_OPTIMIZE, 1}
                                        : std::vector<int>{cv::IMWRITE_WEBP_QUALITY, quality};
    EXPECT_TRUE(cv::imencode(codec_extension(codec), bgr, out, params));
    return out;
}

// The chosen quality's file fits the budget and the next quality's does not (OpenCV's own encodes
// say so); the decoded image is the file's, its PSNR cv::PSNR's; the curve runs over the range.
TEST(CodecBaselines, HighestQualityWithinTheBudgetMatchesOpenCV) {
    cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR), rgb8;
    ASSERT_FALSE(bgr.empty());
    cv::resize(bgr, bgr, cv::Size(120, 90), 0, 0, cv::INTER_AREA);
    cv::cvtColor(bgr, rgb8, cv::COLOR_BGR2RGB);
    for (Codec codec : {Codec::jpeg, Codec::webp}) {
        SCOPED_TRACE(codec_name(codec));
        const size_t budget = 2500;
        int checks = 0;
        const CodecBaseline b = codec_at_bytes(rgb8, false, codec, budget, true, [&](size_t, size_t) { ++checks; });
        ASSERT_TRUE(b.unavailable.empty()) << b.unavailable;
        EXPECT_GT(checks, 0);
        EXPECT_LE(b.chosen.bytes, budget);
        EXPECT_EQ(b.file, opencv_encode(rgb8, codec, b.chosen.quality));
        ASSERT_LT(b.chosen.quality, kHighestQuality);
        EXPECT_GT(opencv_encode(rgb8, codec, b.chosen.quality + 1).size(), budget);
        cv::Mat decoded = cv::imdecode(b.file, cv::IMREAD_COLOR);
        cv::cvtColor(decoded, decoded, cv::COLOR_BGR2RGB);
        EXPECT_EQ(cv::norm(decoded, b.decoded, cv::NORM_INF), 0.0);
        EXPECT_NEAR(b.chosen.psnr, cv::PSNR(rgb8, decoded), 1e-9);
        ASSERT_GE(b.curve.size(), 10u);
        EXPECT_EQ(b.curve.front().quality, 2);
        EXPECT_EQ(b.curve.back().quality, 100);
        EXPECT_GT(b.curve.back().psnr, b.curve.front().psnr);
        EXPECT_GT(b.curve.back().bytes, b.curve.front().bytes);
        // A budget no quality fits: none, and why.
        const CodecBaseline none = codec_at_bytes(rgb8, false, codec, 50, false);
        EXPECT_NE(none.unavailable.find("at quality 1 it takes"), std::string::npos) << none.unavailable;
        EXPECT_TRUE(none.decoded.empty());
    }
    // A gray source is encoded as one channel: a smaller file at the same quality.
    cv::Mat gray_rgb;
    cv::cvtColor(rgb8, gray_rgb, cv::COLOR_RGB2GRAY);
    cv::cvtColor(gray_rgb, gray_rgb, cv::COLOR_GRAY2RGB);
    const CodecBaseline gray = codec_at_bytes(gray_rgb, true, Codec::jpeg, 2500, false);
    EXPECT_LT(gray.chosen.bytes, opencv_encode(gray_rgb, Codec::jpeg, gray.chosen.quality).size());
}

// The report's words: the budget line says what was cut and how to undo it; timings are named for
// what they measure, and a slow rate is never rounded to 0.
TEST(ReportNotes, SayWhatRanAgainstWhatWasAskedAndNameTheTimings) {
    nlohmann::json facts = {{"steps", 2000}, {"batch", 2048}, {"asked_steps", 40000}, {"asked_batch", 16384},
                            {"device", "llvmpipe"}, {"device_type", "cpu"}, {"train_seconds", 139.0},
                            {"gpu_seconds", 120.5}, {"setup_seconds", 0.5}};
    const std::vector<ReportNote> run = run_notes(facts);
    ASSERT_EQ(run.size(), 1u);
    EXPECT_NE(run[0].text.find("2,000 steps at batch 2,048 on llvmpipe (cpu)"), std::string::npos) << run[0].text;
    EXPECT_NE(run[0].text.find("asked for 40,000 steps at batch 16,384"), std::string::npos) << run[0].text;
    EXPECT_NE(run[0].text.find("1/160 of its samples"), std::string::npos) << run[0].text;
    EXPECT_NE(run[0].text.find("--set cpu_steps=0"), std::string::npos) << run[0].text;
    facts["asked_steps"] = 2000;
    facts["asked_batch"] = 2048;
    EXPECT_NE(run_notes(facts)[0].text.find("trained the budget the graph asked for"), std::string::npos);

    const std::vector<ReportRow> rows = timing_rows(facts);
    ASSERT_GE(rows.size(), 3u);
    EXPECT_NE(rows[0].name.find("timestamps"), std::string::npos) << rows[0].name;
    EXPECT_EQ(rows[0].value, "120.500 s (16.6 steps/s)");
    EXPECT_NE(rows[1].name.find("wall time"), std::string::npos) << rows[1].name;
    facts["steps"] = 3;
    facts["train_seconds"] = 20.0;
    facts.erase("gpu_seconds");
    EXPECT_EQ(timing_rows(facts)[0].value, "20.00 s (0.15 steps/s)");

    const ReportNote bilinear = bilinear_note(187, 140, 3, 80668);
    EXPECT_NE(bilinear.text.find("187x140 pixels, 78,540 values"), std::string::npos) << bilinear.text;
    EXPECT_NE(bilinear.text.find("(80,668, 97%)"), std::string::npos) << bilinear.text;
    const std::vector<ReportNote> metrics = metric_notes("8-bit values, as saved");
    EXPECT_NE(metrics[0].text.find("8-bit values"), std::string::npos);
    EXPECT_NE(metrics[1].text.find("sigma 1.5"), std::string::npos);
}

// Which model ran and what the other encoding would cost: its parameters, and the bytes of its
// file at the same precision (the file each encoding's model makes, encoded here independently).
TEST(ReportNotes, NameTheModelAndWhatTheOtherEncodingCosts) {
    namespace fe = ff::engine;
    auto model_file = [](fe::ModelConfig config) {
        fe::ModelFile file;
        file.precision = fe::WeightPrecision::fp16;
        file.image_width = 751;
        file.image_height = 563;
        file.model.config = config;
        file.model.encoding_params.assign(fe::encoding_float_count(config), 0.25f);
        file.model.mlp.assign(fe::mlp_float_count(config), -0.5f);
        return file;
    };
    fe::ModelConfig dense_config;
    dense_config.grid_width = 187; // the lake graph's grid for 751x563
    dense_config.grid_height = 140;
    fe::ModelConfig hash_config;
    hash_config.encoding.kind = fe::EncodingKind::hash_grid;
    const fe::ModelFile dense = model_file(dense_config), hash = model_file(hash_config);

    const std::optional<ModelAlternative> to_hash = model_alternative(dense);
    ASSERT_TRUE(to_hash);
    EXPECT_EQ(to_hash->set, "encoding=hash_grid");
    EXPECT_EQ(to_hash->parameters, 101183u);
    EXPECT_EQ(to_hash->bytes, fe::encode_model_file(hash).size());
    EXPECT_TRUE(to_hash->bytes_exact);
    const std::optional<ModelAlternative> to_dense = model_alternative(hash);
    ASSERT_TRUE(to_dense);
    EXPECT_EQ(to_dense->set, "encoding=dense_grid");
    EXPECT_EQ(to_dense->parameters, dense.model.parameter_count());
    EXPECT_EQ(to_dense->bytes, fe::encode_model_file(dense).size());
    EXPECT_EQ(to_dense->summary, "187x140x3 grid + MLP 32x2");

    const size_t dense_bytes = fe::encode_model_file(dense).size();
    const ReportNote note = model_note(dense, dense_bytes, to_hash);
    EXPECT_EQ(note.lead, "Model:");
    EXPECT_NE(note.text.find("187x140x3 grid + MLP 32x2: " + grouped(dense.model.parameter_count()) +
                             " parameters, " + grouped(dense_bytes) + " bytes as stored (fp16"),
              std::string::npos) << note.text;
    EXPECT_NE(note.text.find("(--set encoding=hash_grid)"), std::string::npos) << note.text;
    EXPECT_NE(note.text.find("101,183 parameters"), std::string::npos) << note.text;
    EXPECT_FALSE(model_alternative(model_file(fe::siren_config())));

    // A hash model of a 10000x10000 photo: its dense alternative (2500x2500x3, past 2^24 weights) is
    // not encoded but estimated from the run's file; within its header's few differing bytes.
    fe::ModelFile large = hash;
    large.image_width = large.image_height = 10000;
    const std::optional<ModelAlternative> estimated = model_alternative(large);
    ASSERT_TRUE(estimated);
    EXPECT_FALSE(estimated->bytes_exact);
    fe::ModelConfig large_dense = dense_config;
    large_dense.grid_width = large_dense.grid_height = 2500;
    fe::ModelFile exact = model_file(large_dense);
    exact.image_width = exact.image_height = 10000;
    EXPECT_NEAR(double(estimated->bytes), double(fe::encode_model_file(exact).size()), 256.0);
}

// The hash table sized to the image (hash_log2_table_size 0): the one whose model's parameter
// count is nearest the dense grid's for that image (the H100 table's photos, bench/RESULTS.md).
TEST(TrainParams, HashTableSizedToTheDenseGridsCount) {
    namespace fe = ff::engine;
    fe::ModelConfig hash;
    hash.encoding.kind = fe::EncodingKind::hash_grid;
    EXPECT_EQ(hash_table_for_count(hash, 80143), 12u);  // leuvenA: 2^12 (101,183) before 2^11 (56,983)
    EXPECT_EQ(hash_table_for_count(hash, 267523), 14u); // aloeL 1282x1110: 2^14 (313,977)
    EXPECT_EQ(hash_table_for_count(hash, 67843), 11u);  // aloeL at half size
    EXPECT_EQ(hash_table_for_count(hash, 100), 10u);    // never below 2^10
    TrainParams params;
    params.grid = "auto";
    params.model = hash;
    params.model.encoding.hash.log2_table_size = 0;
    EXPECT_EQ(model_config_for_image(params, 1282, 1110).encoding.hash.log2_table_size, 14u);
    EXPECT_EQ(model_config_for_image(params, 751, 563).encoding.hash.log2_table_size, 12u);
    params.model.encoding.hash.log2_table_size = 13; // a table given is kept
    EXPECT_EQ(model_config_for_image(params, 1282, 1110).encoding.hash.log2_table_size, 13u);
}

// ---- PNG size ----

// The sample photo (751x563), 8-bit RGB.
cv::Mat sample_photo_rgb8() {
    cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR), rgb;
    if (bgr.empty()) throw std::runtime_error("cannot read " FF_TEST_IMAGE);
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

size_t whole_png_size(const cv::Mat& rgb8) {
    cv::Mat bgr;
    cv::cvtColor(rgb8, bgr, cv::COLOR_RGB2BGR);
    std::vector<unsigned char> png;
    EXPECT_TRUE(cv::imencode(".png", bgr, png, {cv::IMWRITE_PNG_COMPRESSION, 9}));
    return png.size();
}

// Images up to `exact_pixels` are encoded whole: the exact size.
TEST(PngSize, SmallImagesAreEncodedWhole) {
    const cv::Mat photo = sample_photo_rgb8();
    const cv::Mat small = photo(cv::Rect(0, 0, 512, 384)).clone();
    ASSERT_LE(small.total(), PngSizeSampling{}.exact_pixels);
    int checks = 0;
    const PngSize size = smallest_png_size(small, [&](size_t, size_t) { ++checks; });
    EXPECT_FALSE(size.estimated);
    EXPECT_EQ(size.bytes, whole_png_size(small));
    EXPECT_EQ(checks, 0);
}

// Above it, an image within the sample size is encoded as strips that cover every row but a few
// (leuvenA, 0.42 megapixels: 16 strips of 35 rows out of 563): the whole encode's size to 2% (the
// strips restart zlib's window: +1.5% here, 631,341 against 622,099 bytes).
TEST(PngSize, AnImageWithinTheSampleIsEncodedInStripsCoveringIt) {
    const cv::Mat photo = sample_photo_rgb8();
    ASSERT_GT(photo.total(), PngSizeSampling{}.exact_pixels);
    ASSERT_LE(photo.total(), PngSizeSampling{}.sample_pixels);
    const PngSize size = smallest_png_size(photo, {});
    EXPECT_TRUE(size.estimated);
    const double exact = double(whole_png_size(photo));
    EXPECT_NEAR(double(size.bytes) / exact, 1.0, 0.02) << size.bytes << " estimated, " << exact << " exact";
}

// Above the limit the size comes from strips spread over the rows (here 8 strips of 32 rows, under
// half the photo): within 3% of the whole encode (+0.6% to +1.4% on the large photos measured
// in docs), with a check after each batch of strips that can stop it.
TEST(PngSize, EstimateFromStripsIsCloseToTheWholeEncodeAndCanBeStopped) {
    const cv::Mat photo = sample_photo_rgb8();
    const PngSizeSampling sampling{0, 8, 8 * 32 * size_t(photo.cols)};
    size_t last_done = 0, last_total = 0;
    const PngSize size = smallest_png_size(photo, [&](size_t done, size_t total) {
        EXPECT_GT(done, last_done);
        last_done = done, last_total = total;
    }, sampling);
    EXPECT_TRUE(size.estimated);
    EXPECT_EQ(last_done, 8u);
    EXPECT_EQ(last_total, 8u);
    const double exact = double(whole_png_size(photo));
    EXPECT_NEAR(double(size.bytes) / exact, 1.0, 0.03) << size.bytes << " estimated, " << exact << " exact";

    struct Stop {};
    EXPECT_THROW(smallest_png_size(photo, [](size_t, size_t) { throw Stop{}; }, sampling), Stop);
}

TEST(PngThumbnail, ScalesWideImagesDownAndLeavesNarrowOnes) {
    cv::Mat wide(400, 800, CV_8UC3, cv::Scalar(0, 0, 255)); // BGR: red, right half blue
    wide(cv::Rect(400, 0, 400, 400)).setTo(cv::Scalar(255, 0, 0));
    std::vector<unsigned char> png;
    ASSERT_TRUE(cv::imencode(".png", wide, png));

    std::vector<unsigned char> thumb = png_thumbnail(png, 320);
    cv::Mat small = cv::imdecode(thumb, cv::IMREAD_UNCHANGED);
    ASSERT_FALSE(small.empty());
    EXPECT_EQ(small.cols, 320);
    EXPECT_EQ(small.rows, 160);
    EXPECT_EQ(small.at<cv::Vec3b>(80, 10), cv::Vec3b(0, 0, 255));
    EXPECT_EQ(small.at<cv::Vec3b>(80, 310), cv::Vec3b(255, 0, 0));

    EXPECT_EQ(png_thumbnail(thumb, 320), thumb);  // already narrow enough: the same bytes
    std::vector<unsigned char> junk{1, 2, 3, 4};
    EXPECT_EQ(png_thumbnail(junk, 320), junk);    // not an image: left as it is
}

// ---- training log ----

TEST(TrainingLog, CsvHasOneRowPerEntryAndEmptyPsnrWhereNotMeasured) {
    TrainingLog log;
    log.add({1, 0.25, std::nullopt, 100, 0.01});
    log.add({10, 0.125, 12.5, 150.5, 0.07});
    EXPECT_EQ(log.csv(),
              "step,loss,psnr,steps_per_second,elapsed_seconds\n"
              "1,0.25,,100.00,0.010\n"
              "10,0.125,12.5000,150.50,0.070\n");
}

TEST(TrainingLog, WritesCsvAndCurvePicture) {
    fs::path folder = fresh_folder("log");
    TrainingLog log;
    for (uint32_t step = 1; step <= 5000; step *= 2)
        log.add({step, 0.1 / step, 10.0 + std::log2(double(step)), 1000, step / 1000.0});
    log.write(folder / "training_log.csv");
    EXPECT_EQ(read_text(folder / "training_log.csv"), log.csv());
    cv::Mat curve = cv::imread((folder / "training_log.png").string());
    ASSERT_FALSE(curve.empty());
    EXPECT_EQ(curve.cols, 900);
    EXPECT_EQ(curve.rows, 450);
    // Both curves were drawn: the picture is not just background and axes.
    cv::Mat blueish, orangeish;
    cv::inRange(curve, cv::Scalar(150, 80, 0), cv::Scalar(210, 140, 60), blueish);
    cv::inRange(curve, cv::Scalar(0, 90, 200), cv::Scalar(80, 150, 255), orangeish);
    EXPECT_GT(cv::countNonZero(blueish), 200);
    EXPECT_GT(cv::countNonZero(orangeish), 200);
    EXPECT_EQ(TrainingLog::curve_path("a/log.png"), fs::path("a/log_curve.png"));
    fs::remove_all(folder);
}

// ---- snapshots ----

TEST(SnapshotFiles, FindsPairsByStepIgnoringOtherFiles) {
    fs::path folder = fresh_folder("snapshots");
    for (const char* name : {"prediction_at_1.png", "feature_at_1.png", "prediction_at_100.png",
                             "feature_at_20.png", "prediction_at_x.png", "prediction_at_.png",
                             "notes.txt", "training_log.png"})
        std::ofstream(folder / name) << "x";
    auto found = find_snapshots(folder);
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found.begin()->first, 1u);
    EXPECT_EQ(found[1].feature.filename(), "feature_at_1.png");
    EXPECT_TRUE(found[20].prediction.empty());
    EXPECT_EQ(found[100].prediction.filename(), "prediction_at_100.png");
    EXPECT_TRUE(find_snapshots(folder / "missing").empty());
    fs::remove_all(folder);
}

TEST(FeatureImage, NormalisesTheWholeFrameToFullRange) {
    ff::engine::Model model;
    model.config.grid_width = 3;
    model.config.grid_height = 2;
    model.config.grid_channels = 4;
    model.encoding_params.resize(3 * 2 * 4);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-2.0f, 5.0f);
    for (float& v : model.encoding_params) v = u(rng);
    model.encoding_params[0] = -3.0f;           // the frame's minimum, channel 0
    model.encoding_params[4 * 5 + 2] = 7.0f;    // its maximum, channel 2 of the last cell
    model.encoding_params[3] = 100.0f;          // channel 3 is not shown, so it does not set the range
    cv::Mat image = feature_image(model);
    ASSERT_EQ(image.type(), CV_32FC3);
    ASSERT_EQ(image.size(), cv::Size(3, 2));
    EXPECT_FLOAT_EQ(image.at<cv::Vec3f>(0, 0)[0], 0.0f);
    EXPECT_FLOAT_EQ(image.at<cv::Vec3f>(1, 2)[2], 1.0f);
    const cv::Vec3f mid = image.at<cv::Vec3f>(0, 1);
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(mid[k], (model.encoding_params[4 + k] + 3.0f) / 10.0f, 1e-6);

    // One channel is shown as grey; a constant grid as mid grey.
    model.config.grid_channels = 1;
    model.encoding_params.assign(6, 0.5f);
    model.encoding_params[1] = 1.5f;
    image = feature_image(model);
    const cv::Vec3f p = image.at<cv::Vec3f>(0, 1);
    EXPECT_FLOAT_EQ(p[0], 1.0f);
    EXPECT_FLOAT_EQ(p[1], 1.0f);
    EXPECT_FLOAT_EQ(p[2], 1.0f);
    model.encoding_params.assign(6, 0.25f);
    EXPECT_FLOAT_EQ(feature_image(model).at<cv::Vec3f>(1, 1)[1], 0.5f);
}

// ---- checkpoints ----

namespace {

TrainingCheckpoint small_checkpoint() {
    TrainingCheckpoint c;
    c.engine.kind = ff::engine::ModelKind::grid;
    ff::engine::ModelConfig config;
    config.grid_width = 3;
    config.grid_height = 2;
    c.engine.trainer.model = ff::engine::initial_model(config, 1);
    c.engine.trainer.step = 40;
    c.engine.trainer.mlp_m.assign(c.engine.trainer.model.mlp.size(), 0.5f);
    c.engine.trainer.mlp_v.assign(c.engine.trainer.model.mlp.size(), 0.25f);
    c.engine.trainer.encoding_m.assign(c.engine.trainer.model.encoding_params.size(), -0.5f);
    c.engine.trainer.encoding_v.assign(c.engine.trainer.model.encoding_params.size(), 0.125f);
    c.engine.image_width = 12;
    c.engine.image_height = 8;
    c.progress.log = {{1, 0.25, 6.02, 100.0, 0.01}, {20, 0.125, std::nullopt, 250.5, 0.09},
                      {40, 0.0625, 12.04, 300.0, 0.16}};
    c.progress.snapshots = {0, 1, 10};
    c.progress.train_seconds = 0.16;
    c.progress.final_loss = 0.0625;
    c.progress.final_psnr = 12.04;
    return c;
}

} // namespace

TEST(TrainingCheckpointFile, SaveLoadKeepsTheStateAndTheProgress) {
    const fs::path folder = fresh_folder("checkpoint");
    const fs::path path = checkpoint_path(folder);
    EXPECT_EQ(path, folder / "checkpoint.ffckpt");
    EXPECT_FALSE(load_checkpoint(path).has_value()); // none yet: no error
    save_checkpoint(path, small_checkpoint());
    const std::optional<TrainingCheckpoint> back = load_checkpoint(path);
    ASSERT_TRUE(back.has_value());
    const TrainingCheckpoint want = small_checkpoint();
    EXPECT_EQ(back->engine.trainer.step, 40u);
    EXPECT_EQ(back->engine.trainer.model.encoding_params, want.engine.trainer.model.encoding_params);
    EXPECT_EQ(back->engine.trainer.encoding_m, want.engine.trainer.encoding_m);
    EXPECT_EQ(back->engine.image_width, 12u);
    EXPECT_TRUE(back->engine.extra.empty());
    const TrainingProgress& p = back->progress;
    ASSERT_EQ(p.log.size(), 3u);
    EXPECT_EQ(p.log[1].step, 20u);
    EXPECT_EQ(p.log[1].loss, 0.125);
    EXPECT_FALSE(p.log[1].psnr.has_value());
    EXPECT_EQ(p.log[2].psnr, std::optional<double>(12.04));
    EXPECT_EQ(p.log[1].steps_per_second, 250.5);
    EXPECT_EQ(p.snapshots, (std::vector<uint32_t>{0, 1, 10}));
    EXPECT_EQ(p.train_seconds, 0.16);
    EXPECT_EQ(p.final_psnr, std::optional<double>(12.04));
    // Written through a temporary file and renamed: nothing else is left in the folder.
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(folder)) files += entry.is_regular_file();
    EXPECT_EQ(files, 1u);
    fs::remove_all(folder);
}

TEST(TrainingCheckpointFile, DamagedFilesAndProgressAreErrorsNamingWhy) {
    const fs::path folder = fresh_folder("checkpoint_damaged");
    const fs::path path = checkpoint_path(folder);
    save_checkpoint(path, small_checkpoint());
    std::string bytes = read_text(path);
    bytes[bytes.size() / 2] ^= 0x10;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    try {
        load_checkpoint(path);
        ADD_FAILURE() << "a corrupt checkpoint loaded";
    } catch (const ff::Error& e) {
        EXPECT_EQ(std::string(e.what()), path.string() + ": checksum mismatch (corrupt)");
    }
    EXPECT_THROW(progress_from_json("{\"format\": \"something else\"}"), ff::Error);
    EXPECT_THROW(progress_from_json("not json"), ff::Error);
    EXPECT_THROW(progress_from_json(R"({"format": "fieldflow Train progress 1", "log": [[1, 2]],
        "snapshots": [], "train_seconds": 0, "final_loss": 0, "final_psnr": null})"), ff::Error);
    const TrainingProgress round = progress_from_json(progress_json(small_checkpoint().progress));
    EXPECT_EQ(round.log.size(), 3u);
    fs::remove_all(folder);
}

// The progress line's dB follows the loss between evaluations; the measured figure names its step.
TEST(TrainingProgressText, LossDerivedDbMovesAndTheMeasuredOneNamesItsStep) {
    ff::neural::TrainingProgressText text;
    EXPECT_EQ(text.text(0.01), "loss 1.00e-02");
    text.add_loss(0.01); // 20 dB
    EXPECT_NEAR(*text.smoothed_loss_db(), 20.0, 1e-6);
    text.add_eval(25.36, 337);
    EXPECT_EQ(text.text(0.01), "25.36 dB at step 337, ~20.00 dB from the loss, loss 1.00e-02");
    const double before = *text.smoothed_loss_db();
    for (int i = 0; i < 5; ++i) text.add_loss(0.001); // the loss falls: the estimate rises
    EXPECT_GT(*text.smoothed_loss_db(), before + 5.0);
    EXPECT_LT(*text.smoothed_loss_db(), 30.0); // smoothed: not yet all the way to 30 dB
    text.add_loss(std::nan(""));               // ignored
    EXPECT_TRUE(std::isfinite(*text.smoothed_loss_db()));
}
