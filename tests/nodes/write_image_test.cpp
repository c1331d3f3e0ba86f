// WriteImage: formats by extension, 8/16-bit rounding, folders created, and never a half-written
// or stray temporary file when something goes wrong.
#include "fake_host.hpp"
#include "test_support.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using ff::test::FakeRun;
using ff::test::ScratchDir;

namespace {

FakeRun write_run(const cv::Mat& rgb, const std::string& path, uint32_t source_bits = 0) {
    FakeRun run(ff::test::core_plugin().op("WriteImage"));
    ff::test::Image image = ff::test::image_from_mat(rgb);
    image.bits = source_bits;
    run.input("image", std::move(image)).param("path", path);
    return run;
}

bool has_warning(const FakeRun& run, const std::string& part) {
    for (const std::string& line : run.logs())
        if (line.find(part) != std::string::npos) return true;
    return false;
}

// What an 8- or 16-bit file must hold for float RGB input: BGR order, round(clamp(v) * max).
cv::Mat expected_samples(const cv::Mat& rgb, int bits) {
    const double max = bits == 16 ? 65535.0 : 255.0;
    cv::Mat out(rgb.size(), bits == 16 ? CV_16UC3 : CV_8UC3);
    for (int y = 0; y < rgb.rows; ++y)
        for (int x = 0; x < rgb.cols; ++x)
            for (int c = 0; c < 3; ++c) {
                const double v = std::clamp(double(rgb.at<cv::Vec3f>(y, x)[2 - c]), 0.0, 1.0);
                const double q = std::nearbyint(v * max);
                if (bits == 16) out.at<cv::Vec3w>(y, x)[c] = ushort(q);
                else out.at<cv::Vec3b>(y, x)[c] = uchar(q);
            }
    return out;
}

} // namespace

TEST(WriteImage, Png8BitHoldsRoundedValuesAndPassesTheImageOn) {
    ScratchDir dir;
    cv::Mat rgb = ff::test::test_picture(31, 17);
    rgb.at<cv::Vec3f>(0, 0) = cv::Vec3f(-0.5f, 1.5f, 0.5f); // out of range: clamped
    FakeRun run = write_run(rgb, dir.file("out.png"));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const cv::Mat saved = cv::imread(dir.file("out.png"), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(saved.type(), CV_8UC3);
    EXPECT_EQ(ff::test::max_abs_diff(saved, expected_samples(rgb, 8)), 0.0);
    EXPECT_EQ(ff::test::max_abs_diff(run.output_mat("image"), rgb), 0.0);
    EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{"out.png"});
}

TEST(WriteImage, SixteenBitPngAndTiff) {
    ScratchDir dir;
    const cv::Mat rgb = ff::test::test_picture(23, 11, 3);
    for (const char* name : {"deep.png", "deep.tif", "deep.ppm"}) {
        FakeRun run = write_run(rgb, dir.file(name));
        run.param("bits", "16");
        ASSERT_EQ(run.execute(), FF_OK) << name << ": " << run.error();
        const cv::Mat saved = cv::imread(dir.file(name), cv::IMREAD_UNCHANGED);
        ASSERT_EQ(saved.type(), CV_16UC3) << name;
        EXPECT_EQ(ff::test::max_abs_diff(saved, expected_samples(rgb, 16)), 0.0) << name;
    }
}

TEST(WriteImage, JpegIsEncodedFromTheRoundedSamplesAtTheGivenQuality) {
    ScratchDir dir;
    const cv::Mat rgb = ff::test::test_picture(64, 48, 5);
    FakeRun run = write_run(rgb, dir.file("photo.JPG"));
    run.param("quality", 80);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    std::vector<uchar> reference;
    ASSERT_TRUE(cv::imencode(".jpg", expected_samples(rgb, 8), reference, {cv::IMWRITE_JPEG_QUALITY, 80}));
    EXPECT_EQ(ff::test::read_bytes(dir.file("photo.JPG")), std::string(reference.begin(), reference.end()));
}

TEST(WriteImage, ExrKeepsFloatValues) {
    ScratchDir dir;
    cv::Mat rgb = ff::test::test_picture(9, 7, 4);
    rgb.at<cv::Vec3f>(1, 1) = cv::Vec3f(2.5f, -0.25f, 1.0f / 3.0f); // neither clamped nor rounded
    FakeRun run = write_run(rgb, dir.file("linear.exr"));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    cv::Mat saved = cv::imread(dir.file("linear.exr"), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(saved.type(), CV_32FC3);
    cv::cvtColor(saved, saved, cv::COLOR_BGR2RGB);
    EXPECT_EQ(ff::test::max_abs_diff(saved, rgb), 0.0);
}

TEST(WriteImage, EveryListedFormatReadsBack) {
    // Each extension WriteImage accepts must produce a file ReadImage reads back as the same
    // picture: equal up to rounding for lossless formats, close (PSNR) for lossy ones.
    ScratchDir dir;
    const cv::Mat rgb = ff::test::test_picture(48, 32, 11);
    struct Format {
        std::string extension;
        double max_error; // lossless: largest per-sample difference
        double min_psnr;  // lossy: least PSNR in dB
    };
    const double rounding = 0.5 / 255 + 1e-7;
    const std::vector<Format> formats = {
        {"png", rounding, 0},  {"ppm", rounding, 0},  {"pnm", rounding, 0}, {"tif", rounding, 0},
        {"tiff", rounding, 0}, {"bmp", rounding, 0},  {"exr", 1e-7, 0},     {"jpg", 1, 19},
        {"jpeg", 1, 19},       {"webp", 1, 19},       {"hdr", 1, 35}};
    for (const Format& format : formats) {
        const std::string path = dir.file("picture." + format.extension);
        FakeRun write = write_run(rgb, path);
        ASSERT_EQ(write.execute(), FF_OK) << format.extension << ": " << write.error();
        FakeRun read(ff::test::core_plugin().op("ReadImage"));
        read.param("path", path);
        ASSERT_EQ(read.execute(), FF_OK) << format.extension << ": " << read.error();
        const cv::Mat back = read.output_mat("image");
        EXPECT_LE(ff::test::max_abs_diff(back, rgb), format.max_error) << format.extension;
        if (format.min_psnr > 0) {
            EXPECT_GE(cv::PSNR(back, rgb, 1.0), format.min_psnr) << format.extension;
        }
    }
}

TEST(WriteImage, CreatesParentFolders) {
    ScratchDir dir;
    const std::string path = dir.file("a/b/c/out.png");
    FakeRun run = write_run(ff::test::test_picture(8, 8), path);
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    EXPECT_FALSE(cv::imread(path).empty());
}

TEST(WriteImage, BadParamsAreRefusedBeforeRunning) {
    const cv::Mat rgb = ff::test::test_picture(8, 8);
    FakeRun unknown = write_run(rgb, "out/picture.xyz");
    EXPECT_EQ(unknown.validate(), FF_ERROR);
    EXPECT_EQ(unknown.error_param(), "path");
    EXPECT_NE(unknown.error().find("png"), std::string::npos) << unknown.error(); // lists the choices

    FakeRun no_extension = write_run(rgb, "out/picture");
    EXPECT_EQ(no_extension.validate(), FF_ERROR);

    FakeRun deep_jpeg = write_run(rgb, "out/picture.jpg");
    deep_jpeg.param("bits", "16");
    EXPECT_EQ(deep_jpeg.validate(), FF_ERROR);
    EXPECT_EQ(deep_jpeg.error_param(), "bits");
}

TEST(WriteImage, UnwritableFolderIsAClearError) {
    ScratchDir dir;
    // A regular file where the output folder should be: unwritable even for root.
    ff::test::write_bytes(dir.file("not_a_folder"), "x");
    FakeRun run = write_run(ff::test::test_picture(8, 8), dir.file("not_a_folder/out.png"));
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("not_a_folder"), std::string::npos) << run.error();
    EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{"not_a_folder"});
}

TEST(WriteImage, FailedEncodeLeavesNoFileBehind) {
    ScratchDir dir;
    // JPEG cannot store an image wider than 65,535 pixels: the encoder fails after the temporary
    // file exists. The previous file must survive intact, and no temporary may remain.
    const std::string path = dir.file("wide.jpg");
    ff::test::write_bytes(path, "previous content");
    cv::Mat wide(1, 70000, CV_32FC3, cv::Scalar::all(0.5));
    FakeRun run = write_run(wide, path);
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("wide.jpg"), std::string::npos) << run.error();
    EXPECT_FALSE(run.has_output("image"));
    EXPECT_EQ(ff::test::read_bytes(path), "previous content");
    EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{"wide.jpg"});
}

// WebP holds at most 16,383 pixels a side; its encoder's own refusal reads "size > 0".
TEST(WriteImage, WebpPastItsLargestSideIsAClearError) {
    ScratchDir dir;
    cv::Mat widest(1, 16383, CV_32FC3, cv::Scalar::all(0.5));
    FakeRun fits = write_run(widest, dir.file("widest.webp"));
    ASSERT_EQ(fits.execute(), FF_OK) << fits.error();
    EXPECT_EQ(cv::imread(dir.file("widest.webp")).cols, 16383);

    cv::Mat wider(16384, 1, CV_32FC3, cv::Scalar::all(0.5));
    FakeRun run = write_run(wider, dir.file("wider.webp"));
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_NE(run.error().find("1x16384 image is larger than a webp file holds (at most 16383 pixels a side)"),
              std::string::npos)
        << run.error();
    EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{"widest.webp"});
}

TEST(WriteImage, RoundTripThroughReadImage) {
    ScratchDir dir;
    const cv::Mat rgb = ff::test::test_picture(40, 30, 9);
    FakeRun write = write_run(rgb, dir.file("rt.png"));
    write.param("bits", "16");
    ASSERT_EQ(write.execute(), FF_OK) << write.error();
    FakeRun read(ff::test::core_plugin().op("ReadImage"));
    read.param("path", dir.file("rt.png"));
    ASSERT_EQ(read.execute(), FF_OK) << read.error();
    EXPECT_LE(ff::test::max_abs_diff(read.output_mat("image"), rgb), 0.5 / 65535.0 + 1e-7);
}

TEST(WriteImage, SourceDepthByDefault) {
    ScratchDir dir;
    const cv::Mat rgb = ff::test::test_picture(12, 9, 4);
    struct Case {
        const char* name;
        uint32_t source_bits;
        int type;
        const char* warning; // "" for none
    };
    for (const Case& c : {Case{"unknown.png", 0, CV_8UC3, ""}, Case{"eight.png", 8, CV_8UC3, ""},
                          Case{"deep.png", 16, CV_16UC3, ""}, Case{"deep.tif", 16, CV_16UC3, ""},
                          Case{"deep.jpg", 16, CV_8UC3, "stores at most 8 bits"},
                          Case{"float.png", 32, CV_16UC3, "use .exr to keep floats"},
                          Case{"eight.exr", 8, CV_32FC3, ""}, Case{"float.exr", 32, CV_32FC3, ""}}) {
        FakeRun run = write_run(rgb, dir.file(c.name), c.source_bits);
        ASSERT_EQ(run.execute(), FF_OK) << c.name << ": " << run.error();
        EXPECT_EQ(cv::imread(dir.file(c.name), cv::IMREAD_UNCHANGED).type(), c.type) << c.name;
        if (*c.warning) EXPECT_TRUE(has_warning(run, c.warning)) << c.name;
        else EXPECT_TRUE(run.logs().empty()) << c.name << ": " << run.logs().front();
    }
    // An explicit depth wins over the source's.
    FakeRun eight = write_run(rgb, dir.file("forced.png"), 16);
    eight.param("bits", "8");
    ASSERT_EQ(eight.execute(), FF_OK) << eight.error();
    EXPECT_EQ(cv::imread(dir.file("forced.png"), cv::IMREAD_UNCHANGED).type(), CV_8UC3);
}

TEST(WriteImage, GrayAndAlphaAreKeptWhereTheFormatHoldsThem) {
    ScratchDir dir;
    cv::Mat gray(6, 5, CV_32FC1), rgba(6, 5, CV_32FC4);
    cv::randu(gray, 0.0, 1.0);
    cv::randu(rgba, 0.0, 1.0);
    FakeRun gray_png = write_run(gray, dir.file("gray.png"), 16);
    ASSERT_EQ(gray_png.execute(), FF_OK) << gray_png.error();
    EXPECT_EQ(cv::imread(dir.file("gray.png"), cv::IMREAD_UNCHANGED).type(), CV_16UC1);
    EXPECT_EQ(gray_png.output_image("image").channels, 1u);

    FakeRun rgba_png = write_run(rgba, dir.file("rgba.png"), 8);
    ASSERT_EQ(rgba_png.execute(), FF_OK) << rgba_png.error();
    const cv::Mat saved = cv::imread(dir.file("rgba.png"), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(saved.type(), CV_8UC4);
    // Alpha is the fourth channel in both orders (BGRA on disk, RGBA in fieldflow).
    EXPECT_EQ(saved.at<cv::Vec4b>(2, 3)[3], cvRound(rgba.at<cv::Vec4f>(2, 3)[3] * 255.0f));
    EXPECT_TRUE(rgba_png.logs().empty());

    FakeRun rgba_jpg = write_run(rgba, dir.file("rgba.jpg"), 8);
    ASSERT_EQ(rgba_jpg.execute(), FF_OK) << rgba_jpg.error();
    EXPECT_EQ(cv::imread(dir.file("rgba.jpg"), cv::IMREAD_UNCHANGED).channels(), 3);
    EXPECT_TRUE(has_warning(rgba_jpg, "holds no alpha channel")) << rgba_jpg.logs().size();
    EXPECT_EQ(rgba_jpg.logs().size(), 1u); // one warning per conversion
}

// A large image is prepared for the encoder band by band: the file holds what a whole-image
// conversion gives (non-finite values replaced in every band, one warning counting them all),
// progress is shown, and a cancel between bands leaves no file.
TEST(WriteImage, LargeImagesArePreparedInBandsWithProgressAndStopAtACancel) {
    ScratchDir dir;
    cv::Mat rgb(1500, 2000, CV_32FC3);
    cv::randu(rgb, -0.1, 1.1);
    rgb.at<cv::Vec3f>(3, 4)[0] = std::numeric_limits<float>::quiet_NaN();
    rgb.at<cv::Vec3f>(1490, 1990)[2] = std::numeric_limits<float>::infinity();
    FakeRun run = write_run(rgb, dir.file("big.png"));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    cv::Mat clean = rgb.clone();
    clean.at<cv::Vec3f>(3, 4)[0] = 0.0f;
    clean.at<cv::Vec3f>(1490, 1990)[2] = 1.0f;
    cv::Mat whole; // the conversion of the whole image at once, as WriteImage did before bands
    cv::cvtColor(clean, whole, cv::COLOR_RGB2BGR);
    whole.convertTo(whole, CV_8U, 255.0);
    EXPECT_EQ(cv::norm(cv::imread(dir.file("big.png"), cv::IMREAD_UNCHANGED), whole, cv::NORM_INF), 0.0);
    EXPECT_TRUE(has_warning(run, "image has 2 non-finite values (1 NaN, 1 infinite)"));
    const auto& details = run.progress_details();
    EXPECT_GT(std::count(details.begin(), details.end(), "preparing the samples"), 1);
    EXPECT_NE(std::find(details.begin(), details.end(), "writing big.png"), details.end());

    ScratchDir other;
    FakeRun cancelled = write_run(rgb, other.file("big.png"));
    int bands = 0;
    cancelled.on_progress([&](uint64_t, uint64_t, const std::string& detail) {
        return detail == "preparing the samples" && ++bands == 1;
    });
    EXPECT_EQ(cancelled.execute(), FF_CANCELLED);
    EXPECT_EQ(bands, 1);
    EXPECT_TRUE(ff::test::folder_entries(other.path()).empty());
}

TEST(WriteImage, ACancelledNodeWritesNothing) {
    ScratchDir dir;
    FakeRun run = write_run(ff::test::test_picture(20, 10), dir.file("a.png"));
    run.cancel();
    EXPECT_EQ(run.execute(), FF_CANCELLED);
    EXPECT_TRUE(ff::test::folder_entries(dir.path()).empty());
}
