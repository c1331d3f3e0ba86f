// ReadImage: every supported pixel layout ends up as float [0, 1] with the file's channels (gray,
// RGB, RGBA) and bits per sample; every broken file gets an error that says what is wrong with it.
#include "fake_host.hpp"
#include "io/image_file_checks.hpp"
#include "io/pixel_limit.hpp"
#include "test_support.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

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

// A PNG's chunk headers say whether it can hold alpha (colour type 4 or 6, or a tRNS chunk): one
// without is decoded once. A colour key (tRNS) on an RGB PNG decodes with alpha, and is kept.
TEST(ReadImage, PngAlphaIsKnownFromItsChunksAndAColourKeyIsKept) {
    ScratchDir dir;
    ASSERT_TRUE(cv::imwrite(dir.file("rgb.png"), pattern8(3)));
    ASSERT_TRUE(cv::imwrite(dir.file("rgba.png"), pattern8(4)));
    ASSERT_TRUE(cv::imwrite(dir.file("gray.png"), pattern8(1)));
    ASSERT_TRUE(cv::imwrite(dir.file("rgb.jpg"), pattern8(3)));
    EXPECT_EQ(ff::nodes::png_may_hold_alpha(dir.file("rgb.png")), false);
    EXPECT_EQ(ff::nodes::png_may_hold_alpha(dir.file("gray.png")), false);
    EXPECT_EQ(ff::nodes::png_may_hold_alpha(dir.file("rgba.png")), true);
    EXPECT_EQ(ff::nodes::png_may_hold_alpha(dir.file("rgb.jpg")), std::nullopt);

    // The RGB PNG with a tRNS chunk (colour key: the first pixel's colour) inserted after IHDR.
    std::string png = ff::test::read_bytes(dir.file("rgb.png"));
    const cv::Vec3b key = pattern8(3).at<cv::Vec3b>(0, 0); // BGR
    std::string chunk = std::string("tRNS") + '\0' + char(key[2]) + '\0' + char(key[1]) + '\0' + char(key[0]);
    auto be32 = [](uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; };
    uint32_t crc = 0xFFFFFFFFu; // CRC-32 of type and data, as PNG chunks carry
    for (unsigned char byte : chunk) {
        crc ^= byte;
        for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    png.insert(33, be32(6) + chunk + be32(~crc));
    ff::test::write_bytes(dir.file("keyed.png"), png);
    ASSERT_EQ(cv::imread(dir.file("keyed.png"), cv::IMREAD_UNCHANGED).channels(), 4); // what OpenCV decodes
    EXPECT_EQ(ff::nodes::png_may_hold_alpha(dir.file("keyed.png")), true);
    const cv::Mat keyed = read_ok(dir.file("keyed.png"));
    ASSERT_EQ(keyed.type(), CV_32FC4);
    EXPECT_EQ(keyed.at<cv::Vec4f>(0, 0)[3], 0.0f); // the keyed colour is transparent
    EXPECT_EQ(keyed.at<cv::Vec4f>(0, 1)[3], 1.0f);
    EXPECT_EQ(read_ok(dir.file("rgb.png")).type(), CV_32FC3);
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
    EXPECT_TRUE(contains(read_error(dir.file("cut.png")), "is a truncated PNG (it ends without its IEND chunk)"));
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

namespace {

// A small PNG whose header declares `width` x `height` (checksum fixed): what the header check
// meets without decoding.
std::string png_declaring(uint32_t width, uint32_t height) {
    std::vector<uchar> png;
    EXPECT_TRUE(cv::imencode(".png", pattern8(3), png));
    auto put = [&](size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) png[at + size_t(i)] = uchar(v >> (24 - 8 * i));
    };
    put(16, width); // signature(8) length(4) "IHDR"(4) width height ...
    put(20, height);
    uint32_t crc = 0xffffffffu;
    for (size_t i = 12; i < 12 + 4 + 13; ++i) {
        crc ^= png[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    put(29, ~crc);
    return std::string(png.begin(), png.end());
}

} // namespace

// max_pixels 0 (the default) is what this machine's memory holds at 64 bytes a pixel, and never
// more than OpenCV's decoders read; an image just over it is refused from its header, saying why.
TEST(ReadImage, DefaultMaxPixelsFollowsHostMemory) {
    ScratchDir dir;
    const uint64_t memory = ff::nodes::host_memory_bytes();
    ASSERT_GT(memory, 0u);
    const uint64_t limit = std::min(memory / 64, ff::nodes::decoder_pixel_limit());
    ff::test::write_bytes(dir.file("over.png"), png_declaring(uint32_t(limit / 2 + 1), 2));
    FakeRun over = read_run(dir.file("over.png"));
    EXPECT_EQ(over.validate(), FF_ERROR);
    EXPECT_EQ(over.error_param(), "max_pixels");
    EXPECT_TRUE(contains(over.error(), " = " + std::to_string((limit / 2 + 1) * 2) + " pixels (from its header), over "));
    EXPECT_TRUE(contains(over.error(), limit == memory / 64 ? "bytes per pixel the main job needs"
                                                            : "the most OpenCV's decoders read"));
    // At the limit the header passes; this file then fails as what it is, a header without pixels.
    ff::test::write_bytes(dir.file("at.png"), png_declaring(uint32_t(limit / 2), 2));
    FakeRun at = read_run(dir.file("at.png"));
    EXPECT_EQ(at.validate(), FF_OK) << at.error();
}

TEST(PixelLimit, MemoryRuleAndDecoderLimit) {
    EXPECT_EQ(ff::nodes::memory_pixel_limit(uint64_t(64) << 30), uint64_t(1) << 30);
    EXPECT_EQ(ff::nodes::memory_pixel_limit(uint64_t(23) << 30), (uint64_t(23) << 30) / 64);
    EXPECT_EQ(ff::nodes::pixel_limit(1000).pixels, 1000u);
    EXPECT_EQ(ff::nodes::pixel_limit(1000).reason, "max_pixels = 1000");
    EXPECT_EQ(ff::nodes::pixel_limit(0).pixels, ff::nodes::host_memory_bytes() / 64);
    EXPECT_TRUE(contains(ff::nodes::pixel_limit(0).reason, "GiB of memory"));
    // Over the decoders' limit no max_pixels helps, and the message says so, the same on every
    // machine (the reliability matrix shows it).
    try {
        ff::nodes::check_pixel_limit("x.png", 65000, 65000, int64_t(1) << 31, " (from its header)");
        ADD_FAILURE() << "65000x65000 accepted";
    } catch (const ff::ParamError& e) {
        EXPECT_EQ(std::string(e.what()), "'x.png' is 65000x65000 = 4225000000 pixels (from its header), "
                                         "over 1073741824 pixels, the most OpenCV's decoders read "
                                         "(OPENCV_IO_MAX_IMAGE_PIXELS)");
    }
    ::setenv("OPENCV_IO_MAX_IMAGE_PIXELS", "1000", 1);
    EXPECT_EQ(ff::nodes::decoder_pixel_limit(), 1000u);
    EXPECT_THROW(ff::nodes::check_pixel_limit("x.png", 40, 30, 0, ""), ff::ParamError);
    ::unsetenv("OPENCV_IO_MAX_IMAGE_PIXELS");
    EXPECT_EQ(ff::nodes::decoder_pixel_limit(), uint64_t(1) << 30);
    EXPECT_NO_THROW(ff::nodes::check_pixel_limit("x.png", 40, 30, 0, ""));
}

// A large image is converted band by band into the output: the same values as a whole-image
// conversion, progress shown, and a cancel between bands answered.
TEST(ReadImage, LargeImagesConvertInBandsWithProgressAndStopAtACancel) {
    ScratchDir dir;
    cv::Mat bgra(1500, 2000, CV_16UC4);
    cv::randu(bgra, 0, 65536);
    ASSERT_TRUE(cv::imwrite(dir.file("big.png"), bgra));
    FakeRun run = read_run(dir.file("big.png"));
    ASSERT_EQ(run.execute(), FF_OK) << run.error();
    const ff::test::Image& out = run.output_image("image");
    ASSERT_EQ(out.channels, 4u);
    cv::Mat expected;
    bgra.convertTo(expected, CV_32F, 1.0 / 65535.0);
    cv::cvtColor(expected, expected, cv::COLOR_BGRA2RGBA);
    const cv::Mat got(int(out.height), int(out.width), CV_32FC4, const_cast<float*>(out.pixels.data()));
    EXPECT_EQ(cv::norm(got, expected, cv::NORM_INF), 0.0);
    const auto& details = run.progress_details();
    EXPECT_GT(std::count(details.begin(), details.end(), "converting to float"), 1);

    FakeRun cancelled = read_run(dir.file("big.png"));
    int bands = 0;
    cancelled.on_progress([&](uint64_t, uint64_t, const std::string& detail) {
        return detail == "converting to float" && ++bands == 1;
    });
    EXPECT_EQ(cancelled.execute(), FF_CANCELLED);
    EXPECT_EQ(bands, 1); // stopped at the next band, not at the end
}

TEST(ReadImage, ACancelledNodeReadsNothing) {
    ScratchDir dir;
    ASSERT_TRUE(cv::imwrite(dir.file("a.png"), pattern8(3)));
    FakeRun run = read_run(dir.file("a.png"));
    run.cancel();
    EXPECT_EQ(run.execute(), FF_CANCELLED);
    EXPECT_EQ(run.progress_calls(), 0u);
}
