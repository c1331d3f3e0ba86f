// WriteImage's encoder step (nodes/io/encoded_write.cpp), run here with this binary's own copy of
// the cancellable call, so a test can wait for an abandoned encoder to end before looking again.
#include "common/cancellable_call.hpp"
#include "io/encoded_write.hpp"
#include "io/image_formats.hpp"
#include "helper_host.hpp"
#include "test_support.hpp"

#include <fieldflow/node.hpp>

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using ff::test::ScratchDir;

namespace {

// Noise, which no encoder compresses quickly: its encoding lasts long enough to be interrupted.
cv::Mat noise(int depth) {
    cv::Mat image(1600, 2400, CV_MAKETYPE(depth, 3));
    cv::randu(image, 0, depth == CV_32F ? 1.0 : 255.0);
    return image;
}

} // namespace

// PNG is encoded in memory and then written; EXR is written by OpenCV into a file it opens itself,
// in a folder of its own. Either way a cancel during the encoding leaves nothing behind, neither
// at once nor after the abandoned encoder has finished.
TEST(WriteEncoded, ACancelDuringTheEncodingLeavesNoFileEvenAfterTheEncoderEnds) {
    for (const char* extension : {".png", ".exr"}) {
        ScratchDir dir;
        const std::string target = dir.file(std::string("out") + extension);
        const ff::nodes::ImageFormat& format = *ff::nodes::image_format_for(target);
        ff::test::HelperHost host;
        host.cancel_at = "encoding";
        ff::Node node = host.node();
        EXPECT_THROW(ff::nodes::write_encoded(node, target, format,
                                              noise(format.encodes_in_memory ? CV_8U : CV_32F), {}),
                     ff::Cancelled)
            << extension;
        EXPECT_TRUE(ff::test::folder_entries(dir.path()).empty()) << extension;
        ff::nodes::wait_for_abandoned_calls();
        EXPECT_TRUE(ff::test::folder_entries(dir.path()).empty()) << extension;
    }
}

TEST(WriteEncoded, WritesTheFileAndNothingElse) {
    for (const char* extension : {".png", ".exr"}) {
        ScratchDir dir;
        const std::string target = dir.file(std::string("out") + extension);
        const ff::nodes::ImageFormat& format = *ff::nodes::image_format_for(target);
        ff::test::HelperHost host;
        ff::Node node = host.node();
        const cv::Mat image = noise(format.encodes_in_memory ? CV_8U : CV_32F)(cv::Rect(0, 0, 64, 48)).clone();
        ff::nodes::write_encoded(node, target, format, image, {});
        EXPECT_EQ(ff::test::folder_entries(dir.path()), std::vector<std::string>{std::string("out") + extension});
        const cv::Mat back = cv::imread(target, cv::IMREAD_UNCHANGED);
        ASSERT_EQ(back.size(), image.size()) << extension;
        EXPECT_EQ(cv::norm(back, image, cv::NORM_INF), 0.0) << extension;
    }
}
