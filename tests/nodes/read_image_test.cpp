// ReadImage: every supported pixel layout ends up as float [0, 1] with the file's channels (gray,
// RGB, RGBA) and bits per sample; every broken file gets an error that says what is wrong with it.
#include "fake_host.hpp"
#include "test_support.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

using ff::test::FakeRun;
using ff::test::ScratchDir;

namespace {

FakeRun read_run(const std::string& path) {
    FakeRun run(ff::test::core_plugin().op("ReadImage"));
    run.param("path", path);
    return run;
}

// Reads `path` with the node; fails the test if it errors.
cv::Mat read_ok(const std::string& path) {
    FakeRun run = read_run(path);
    EXPECT_EQ(run.execute(), FF_OK) << run.error();
    if (!run.has_output("image")) return {};
    return run.output_mat("image");
}

// The bits per sample the node says its output stands for (ff_image.bits).
uint32_t read_bits(const std::string& path) {
    FakeRun run = read_run(path);
    EXPECT_EQ(run.execute(), FF_OK) << run.error();
    return run.has_output("image") ? run.output_image("image").bits : 0;
}

// The node's error for `path` (empty if it succeeded).
std::string read_error(const std::string& path) {
    FakeRun run = read_run(path);
    if (run.execute() == FF_OK) return {};
    return run.error();
}

// 8-bit BGR(A) test pixels with every value 0..255 represented.
cv::Mat pattern8(int channels) {
    cv::Mat m(13, 29, CV_8UC(channels));
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            for (int c = 0; c < channels; ++c)
                m.ptr<uchar>(y)[x * channels + c] = uchar((x * 37 + y * 11 + c * 85) % 256);
    return m;
}

::testing::AssertionResult contains(const std::string& text, const std::string& part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

} // namespace

TEST(ReadImage, Rgb8BitPngBecomesUnitFloatRgb) {
    ScratchDir dir;
    const cv::Mat bgr = pattern8(3);
    ASSERT_TRUE(cv::imwrite(dir.file("a.png"), bgr));
    cv::Mat expected;
    cv::cvtColor(bgr, expected, cv::COLOR_BGR2RGB);
    expected.convertTo(expected, CV_32F, 1.0 / 255.0);
    const cv::Mat out = read_ok(dir.file("a.png"));
    ASSERT_EQ(out.type(), CV_32FC3);
    EXPECT_LE(ff::test::max_abs_diff(out, expected), 1e-7);
    // Spot-check the channel order on one pixel: first channel is red (BGR's last).
    EXPECT_FLOAT_EQ(out.at<cv::Vec3f>(2, 3)[0], bgr.at<cv::Vec3b>(2, 3)[2] / 255.0f);
    EXPECT_EQ(read_bits(dir.file("a.png")), 8u);
}

TEST(ReadImage, SixteenBitPngKeepsItsPrecision) {
    ScratchDir dir;
    cv::Mat bgr16(9, 17, CV_16UC3);
    cv::randu(bgr16, cv::Scalar::all(0), cv::Scalar::all(65536));
    bgr16.at<cv::Vec3w>(0, 0) = cv::Vec3w(0, 1, 65535);
    ASSERT_TRUE(cv::imwrite(dir.file("deep.png"), bgr16));
    cv::Mat expected;
    cv::cvtColor(bgr16, expected, cv::COLOR_BGR2RGB);
    expected.convertTo(expected, CV_32F, 1.0 / 65535.0);
    const cv::Mat out = read_ok(dir.file("deep.png"));
    EXPECT_LE(ff::test::max_abs_diff(out, expected), 1e-7);
    EXPECT_FLOAT_EQ(out.at<cv::Vec3f>(0, 0)[0], 1.0f);
    EXPECT_FLOAT_EQ(out.at<cv::Vec3f>(0, 0)[1], 1.0f / 65535.0f); // not representable in 8 bits
    EXPECT_EQ(read_bits(dir.file("deep.png")), 16u); // so WriteImage and the metrics keep 16 bits
}

TEST(ReadImage, GrayStaysOneChannel) {
    ScratchDir dir;
    const cv::Mat gray = pattern8(1);
    ASSERT_TRUE(cv::imwrite(dir.file("g.png"), gray));
    const cv::Mat out = read_ok(dir.file("g.png"));
    ASSERT_EQ(out.type(), CV_32FC1);
    for (int y = 0; y < gray.rows; ++y)
        for (int x = 0; x < gray.cols; ++x)
            ASSERT_FLOAT_EQ(out.at<float>(y, x), gray.at<uchar>(y, x) / 255.0f);
}

TEST(ReadImage, RgbaKeepsItsAlpha) {
    ScratchDir dir;
    const cv::Mat bgra = pattern8(4);
    ASSERT_TRUE(cv::imwrite(dir.file("rgba.png"), bgra));
    ASSERT_EQ(cv::imread(dir.file("rgba.png"), cv::IMREAD_UNCHANGED).channels(), 4); // really RGBA
    cv::Mat expected;
    cv::cvtColor(bgra, expected, cv::COLOR_BGRA2RGBA);
    expected.convertTo(expected, CV_32F, 1.0 / 255.0);
    const cv::Mat out = read_ok(dir.file("rgba.png"));
    ASSERT_EQ(out.type(), CV_32FC4);
    EXPECT_LE(ff::test::max_abs_diff(out, expected), 1e-7);
}

TEST(ReadImage, JpegMatchesOpenCvDecode) {
    cv::Mat expected = cv::imread(FF_SAMPLE_IMAGE, cv::IMREAD_COLOR);
    ASSERT_FALSE(expected.empty());
    cv::cvtColor(expected, expected, cv::COLOR_BGR2RGB);
    expected.convertTo(expected, CV_32F, 1.0 / 255.0);
    const cv::Mat out = read_ok(FF_SAMPLE_IMAGE);
    EXPECT_EQ(out.cols, 751);
    EXPECT_EQ(out.rows, 563);
    EXPECT_LE(ff::test::max_abs_diff(out, expected), 1e-7);
}

TEST(ReadImage, JpegWithBytesAfterTheEndMarkerIsAccepted) {
    ScratchDir dir;
    std::vector<uchar> jpeg;
    ASSERT_TRUE(cv::imencode(".jpg", pattern8(3), jpeg));
    std::string bytes(jpeg.begin(), jpeg.end());
    ff::test::write_bytes(dir.file("trailer.jpg"), bytes + std::string(100, '\0') + "metadata");
    EXPECT_EQ(read_error(dir.file("trailer.jpg")), "");
}

TEST(ReadImage, FloatExrKeepsItsValues) {
    // Debian's OpenCV reads and writes OpenEXR; values above 1 (HDR) are kept as they are.
    ScratchDir dir;
    cv::Mat bgr(5, 7, CV_32FC3);
    cv::randu(bgr, cv::Scalar::all(0.0), cv::Scalar::all(4.0));
    ASSERT_TRUE(cv::imwrite(dir.file("hdr.exr"), bgr));
    cv::Mat expected;
    cv::cvtColor(bgr, expected, cv::COLOR_BGR2RGB);
    EXPECT_LE(ff::test::max_abs_diff(read_ok(dir.file("hdr.exr")), expected), 1e-6);
    EXPECT_EQ(read_bits(dir.file("hdr.exr")), 32u);
}

TEST(ReadImage, BrokenFilesGetSpecificErrors) {
    ScratchDir dir;
    ff::test::write_bytes(dir.file("empty.png"), "");
    EXPECT_TRUE(contains(read_error(dir.file("empty.png")), "is empty (0 bytes)"));

    ff::test::write_bytes(dir.file("text.png"), "this is a text file, not a picture\n");
    EXPECT_TRUE(contains(read_error(dir.file("text.png")), "cannot decode"));

    EXPECT_TRUE(contains(read_error(dir.file("missing.png")), "file not found"));
    EXPECT_TRUE(contains(read_error(dir.path().string()), "is a folder"));
    EXPECT_TRUE(contains(read_error(dir.file("missing.png")), dir.file("missing.png")));
}

TEST(ReadImage, TruncatedJpegIsRefused) {
    ScratchDir dir;
    const std::string jpeg = ff::test::read_bytes(FF_SAMPLE_IMAGE);
    // Cut at several points inside the compressed data (OpenCV alone would hand back a partly
    // gray picture and only print a warning).
    for (double fraction : {0.3, 0.6, 0.95}) {
        const std::string path = dir.file("cut.jpg");
        ff::test::write_bytes(path, jpeg.substr(0, size_t(jpeg.size() * fraction)));
        EXPECT_TRUE(contains(read_error(path), "truncated JPEG")) << fraction;
    }
    // A file cut inside its headers is not decodable at all.
    ff::test::write_bytes(dir.file("head.jpg"), jpeg.substr(0, 200));
    EXPECT_NE(read_error(dir.file("head.jpg")), "");
}

TEST(ReadImage, TruncatedPngIsRefused) {
    ScratchDir dir;
    cv::Mat big = ff::test::test_picture(200, 150);
    big.convertTo(big, CV_8U, 255.0);
    std::vector<uchar> png;
    ASSERT_TRUE(cv::imencode(".png", big, png));
    ff::test::write_bytes(dir.file("cut.png"), std::string(png.begin(), png.begin() + long(png.size() / 2)));
    EXPECT_TRUE(contains(read_error(dir.file("cut.png")), "cannot decode"));
}

TEST(ReadImage, MaxPixelsGuard) {
    ScratchDir dir;
    ASSERT_TRUE(cv::imwrite(dir.file("a.png"), pattern8(3))); // 29 x 13 = 377 pixels
    FakeRun run = read_run(dir.file("a.png"));
    run.param("max_pixels", 376);
    EXPECT_EQ(run.execute(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "max_pixels");
    EXPECT_TRUE(contains(run.error(), "29x13 = 377 pixels"));
    run.param("max_pixels", 377);
    EXPECT_EQ(run.execute(), FF_OK) << run.error();
}

TEST(ReadImage, EmptyPathIsRefusedBeforeRunning) {
    FakeRun run = read_run("");
    EXPECT_EQ(run.validate(), FF_ERROR);
    EXPECT_EQ(run.error_param(), "path");
}
