// Statistics and Histogram against OpenCV called directly on 8-bit, 16-bit and float samples.
#include "depth_cases.hpp"
#include "fake_host.hpp"
#include "test_support.hpp"

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

using ff::test::FakeRun;
using ff::test::full_scale;
using ff::test::kDepths;

namespace {

nlohmann::json run_json(FakeRun& run) {
    EXPECT_EQ(run.execute(), FF_OK) << run.error();
    return nlohmann::json::parse(run.output_text("json"));
}

} // namespace

TEST(Statistics, MatchMinMaxLocAndMeanStdDevAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            const cv::Mat in = ff::test::picture_at(13, 9, channels, d.depth, 3);
            const double s = full_scale(d.depth);
            // A mask of the left half, given as an RGB image (taken by its luma).
            cv::Mat mask(in.size(), CV_32FC3, cv::Scalar::all(0.0));
            mask.colRange(0, 6).setTo(cv::Scalar::all(1.0));
            for (bool masked : {false, true}) {
                FakeRun run(ff::test::core_plugin().op("Statistics"));
                run.input("image", ff::test::image_of(in));
                if (masked) run.input("mask", mask);
                const nlohmann::json json = run_json(run);
                EXPECT_EQ(json["pixels"], masked ? 6 * 9 : 13 * 9);
                EXPECT_EQ(json["width"], 13);
                EXPECT_EQ(json["bits"], d.bits);
                std::vector<cv::Mat> planes;
                cv::split(in, planes);
                const std::vector<std::string> names = channels == 1 ? std::vector<std::string>{"gray"}
                                                       : channels == 3 ? std::vector<std::string>{"red", "green", "blue"}
                                                                       : std::vector<std::string>{"red", "green", "blue", "alpha"};
                ASSERT_EQ(json["channels"].size(), names.size());
                const cv::Mat cv_mask = masked ? cv::Mat(in.size(), CV_8U, cv::Scalar(0)) : cv::Mat();
                if (masked) cv_mask.colRange(0, 6).setTo(255);
                for (size_t i = 0; i < names.size(); ++i) {
                    double low = 0, high = 0;
                    cv::minMaxLoc(planes[i], &low, &high, nullptr, nullptr, cv_mask);
                    cv::Scalar mean, stddev;
                    cv::meanStdDev(planes[i], mean, stddev, cv_mask);
                    const nlohmann::json& c = json["channels"][names[i]];
                    EXPECT_NEAR(c["min"].get<double>(), low / s, 1e-6) << ff::test::case_name(d, channels) << names[i];
                    EXPECT_NEAR(c["max"].get<double>(), high / s, 1e-6) << ff::test::case_name(d, channels) << names[i];
                    EXPECT_NEAR(c["mean"].get<double>(), mean[0] / s, 1e-6) << ff::test::case_name(d, channels) << names[i];
                    EXPECT_NEAR(c["stddev"].get<double>(), stddev[0] / s, 1e-6) << ff::test::case_name(d, channels) << names[i];
                }
            }
        }
}

TEST(Statistics, AMaskOfAnotherSizeOrSelectingNothingIsRefused) {
    FakeRun size(ff::test::core_plugin().op("Statistics"));
    size.input("image", ff::test::test_picture(8, 6)).input("mask", ff::test::test_picture(6, 6));
    EXPECT_EQ(size.execute(), FF_ERROR);
    EXPECT_NE(size.error().find("input 'mask' is 6x6 but 'image' is 8x6"), std::string::npos) << size.error();
    FakeRun none(ff::test::core_plugin().op("Statistics"));
    none.input("image", ff::test::test_picture(8, 6)).input("mask", cv::Mat(6, 8, CV_32FC3, cv::Scalar::all(0.2)));
    EXPECT_EQ(none.execute(), FF_ERROR);
    EXPECT_NE(none.error().find("selects no pixel"), std::string::npos) << none.error();
}

TEST(Histogram, CountsMatchCalcHistOnTheSamplesAtEveryDepth) {
    for (const auto& d : kDepths)
        for (int channels : {1, 3, 4}) {
            cv::Mat in = ff::test::picture_at(17, 11, channels, d.depth, 4);
            in.row(0).setTo(cv::Scalar::all(full_scale(d.depth))); // full-scale values land in the last bin
            const int bins = d.depth == CV_8U ? 256 : 64;
            FakeRun run(ff::test::core_plugin().op("Histogram"));
            run.input("image", ff::test::image_of(in)).param("bins", bins).param("plot_width", 128).param("plot_height", 40);
            const nlohmann::json json = run_json(run);
            std::vector<cv::Mat> planes;
            cv::split(in, planes);
            const int colours = channels == 4 ? 3 : channels;
            ASSERT_EQ(json["channels"].size(), size_t(colours)) << "alpha is not counted";
            for (int c = 0; c < colours; ++c) {
                const std::string name = channels == 1 ? "gray" : c == 0 ? "red" : c == 1 ? "green" : "blue";
                const std::vector<double> got = json["channels"][name].get<std::vector<double>>();
                ASSERT_EQ(got.size(), size_t(bins));
                // Integer samples: [0, 256) or [0, 65536) in OpenCV's own terms; floats: a direct count.
                std::vector<double> want(size_t(bins), 0.0);
                if (d.depth == CV_32F) {
                    for (auto it = planes[c].begin<float>(); it != planes[c].end<float>(); ++it)
                        want[size_t(std::min(bins - 1, int(*it * bins)))] += 1;
                } else {
                    const float range[] = {0.0f, float(full_scale(d.depth) + 1.0)};
                    const float* ranges[] = {range};
                    const int channel = 0;
                    cv::Mat hist;
                    cv::calcHist(&planes[c], 1, &channel, cv::Mat(), hist, 1, &bins, ranges);
                    want.assign(hist.begin<float>(), hist.end<float>());
                }
                EXPECT_EQ(got, want) << ff::test::case_name(d, channels) << " " << name;
                EXPECT_GE(got.back(), 17.0) << "the full-scale row counts in the last bin";
            }
            const cv::Mat plot = run.output_mat("image");
            ASSERT_EQ(plot.size(), cv::Size(128, 40));
            double high = 0;
            cv::minMaxLoc(plot.reshape(1), nullptr, &high);
            EXPECT_GT(high, 0.99) << "the tallest bin reaches the top in its colour";
        }
}

TEST(Histogram, HighNotAboveLowIsAParamErrorAtValidation) {
    FakeRun run(ff::test::core_plugin().op("Histogram"));
    run.param("low", 0.5).param("high", 0.5);
    EXPECT_EQ(run.validate(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "high");
    EXPECT_NE(run.error().find("must be above low"), std::string::npos) << run.error();
}
