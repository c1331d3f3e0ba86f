// graphs/upscale_methods.yaml run by the real `fieldflow` host on a photo whose size is not a
// multiple of the factor: the photo is cropped to a multiple, shrunk and scaled back by exactly
// the factor, so linear scores what the bilinear baseline (area down, bilinear up) does on the
// same pixels, recomputed here with OpenCV; one table, and 1:1 panels with their scores.
#include "run_command.hpp"
#include "test_support.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;
using ff::test::ScratchDir;

TEST(UpscaleGraph, ASizeNotAMultipleOfTheFactorIsCroppedNotShifted) {
    ScratchDir dir;
    cv::Mat photo = cv::imread("/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg", cv::IMREAD_COLOR);
    ASSERT_FALSE(photo.empty());
    cv::resize(photo, photo, cv::Size(50, 37), 0, 0, cv::INTER_AREA); // 2 columns and 1 row past 48x36
    const fs::path input = dir.path() / "photo.png", out = dir.path() / "up";
    ASSERT_TRUE(cv::imwrite(input.string(), photo));
    const auto run = ff::test::run_command(std::string(FF_FIELDFLOW_EXE) + " run " + FF_GRAPHS_DIR +
                                           "/upscale_methods.yaml --no-cache --set input=" + input.string() +
                                           " --set output=" + out.string() +
                                           " --set crop_x=8 --set crop_y=8 --set crop_size=24");
    ASSERT_EQ(run.exit_code, 0) << run.output;

    const auto table = nlohmann::json::parse(ff::test::read_bytes((out / "table.json").string()));
    EXPECT_EQ(table["width"], 48);
    EXPECT_EQ(table["height"], 36);
    ASSERT_EQ(table["images"].size(), 3u);
    EXPECT_EQ(table["images"][1]["image"], "linear");

    // The bilinear baseline of the crop, as BilinearBaseline computes it: area down to 12x9,
    // bilinear back up; linear is the same within 0.05 dB (the box filter sums in double).
    const cv::Mat crop = photo(cv::Rect(0, 0, 48, 36));
    cv::Mat unit, small, up, up8;
    crop.convertTo(unit, CV_32F, 1.0 / 255.0);
    cv::resize(unit, small, cv::Size(12, 9), 0, 0, cv::INTER_AREA);
    cv::resize(small, up, unit.size(), 0, 0, cv::INTER_LINEAR);
    up.convertTo(up8, CV_8U, 255.0);
    EXPECT_NEAR(table["images"][1]["psnr"].get<double>(), cv::PSNR(crop, up8), 0.05);
    // Stretching the 12x9 back over the whole 50x37 photo (the shifted way) scores worse.
    cv::Mat stretched;
    cv::resize(small, stretched, photo.size(), 0, 0, cv::INTER_LINEAR);
    stretched.convertTo(stretched, CV_8U, 255.0);
    EXPECT_GT(table["images"][1]["psnr"].get<double>(), cv::PSNR(photo, stretched));

    // One table in three forms, and the panels: the reference and 3 methods, 24x24 each at 1:1
    // under two label lines.
    const std::string csv = ff::test::read_bytes((out / "table.csv").string());
    EXPECT_EQ(csv.rfind("image,psnr_db,ssim,mse\nnearest,", 0), 0u) << csv;
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);
    EXPECT_NE(ff::test::read_bytes((out / "table.md").string()).find("| linear | "), std::string::npos);
    const cv::Mat strip = cv::imread((out / "compare.png").string(), cv::IMREAD_COLOR);
    ASSERT_EQ(strip.size(), cv::Size(4 * 24 + 3 * 4, 24 + 48));
    cv::Mat lanczos = cv::imread((out / "lanczos.png").string(), cv::IMREAD_COLOR);
    ASSERT_EQ(lanczos.size(), cv::Size(48, 36));
    EXPECT_EQ(cv::norm(strip(cv::Rect(3 * 28, 48, 24, 24)), lanczos(cv::Rect(8, 8, 24, 24)), cv::NORM_INF), 0.0);

    // A region past the image's edge moves inside it: the bottom-right 24x24 of the crop.
    const fs::path out2 = dir.path() / "up2";
    const auto past = ff::test::run_command(std::string(FF_FIELDFLOW_EXE) + " run " + FF_GRAPHS_DIR +
                                            "/upscale_methods.yaml --no-cache --set input=" + input.string() +
                                            " --set output=" + out2.string() +
                                            " --set crop_x=100 --set crop_y=100 --set crop_size=24");
    ASSERT_EQ(past.exit_code, 0) << past.output;
    const cv::Mat moved = cv::imread((out2 / "compare.png").string(), cv::IMREAD_COLOR);
    ASSERT_EQ(moved.size(), strip.size());
    EXPECT_EQ(cv::norm(moved(cv::Rect(3 * 28, 48, 24, 24)), lanczos(cv::Rect(24, 12, 24, 24)), cv::NORM_INF), 0.0);
}
