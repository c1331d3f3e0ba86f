// The image ops through the real `fieldflow` host: every op's bad params reported at once by
// `check`, each at its FILE:LINE:COL naming node and param; and a chain of them run on a photo,
// its numbers checked against OpenCV.
#include "run_command.hpp"
#include "test_support.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ff::test::ScratchDir;

namespace {

constexpr const char* kPhoto = "/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg";

ff::test::CommandResult fieldflow(const std::string& arguments) {
    return ff::test::run_command(std::string(FF_FIELDFLOW_EXE) + " " + arguments);
}

void write_text(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

} // namespace

TEST(ImageOpsGraph, CheckReportsEveryBadParamAtItsLine) {
    struct Case {
        const char* node;
        const char* yaml; // the node's line after "  NODE: "
        const char* says;
    };
    const Case cases[] = {
        {"pad", "{op: Pad, inputs: {image: image}, params: {left: -3}}", "param 'left' = -3 is out of range"},
        {"rotate", "{op: Rotate, inputs: {image: image}, params: {angle: 400}}", "param 'angle'"},
        {"affine", "{op: WarpAffine, inputs: {image: image}, params: {matrix: '1 0 0 0 1'}}", "param 'matrix': matrix needs 6 numbers"},
        {"perspective", "{op: WarpPerspective, inputs: {image: image}, params: {from: '0,0 1,0 1,1', to: '0,0 1,0 1,1 0,1'}}", "param 'from': from needs 4 points"},
        {"levels", "{op: Levels, inputs: {image: image}, params: {black: 0.5, white: 0.2}}", "param 'white': white (0.2) must be above black (0.5)"},
        {"invert", "{op: Invert, inputs: {image: image}, params: {alpha: true}}", "unknown param 'alpha'"},
        {"normalize", "{op: Normalize, inputs: {image: image}, params: {low: 0.9, high: 0.1}}", "param 'high': high (0.1) must not be below low (0.9)"},
        {"threshold", "{op: Threshold, inputs: {image: image}, params: {method: otsu2}}", "param 'method' must be one of"},
        {"box", "{op: BoxBlur, inputs: {image: image}, params: {width: 0}}", "param 'width' = 0 is out of range"},
        {"median", "{op: MedianBlur, inputs: {image: image}, params: {size: 4}}", "param 'size': size must be odd"},
        {"bilateral", "{op: BilateralFilter, inputs: {image: image}, params: {sigma_color: 0}}", "param 'sigma_color'"},
        {"denoise", "{op: Denoise, inputs: {image: image}, params: {template_size: 8}}", "param 'template_size': template_size must be odd"},
        {"morphology", "{op: Morphology, inputs: {image: image}, params: {operation: erdoe}}", "(did you mean 'erode'?)"},
        {"canny", "{op: Canny, inputs: {image: image}, params: {low: 200, high: 100}}", "param 'high': high (100) must not be below low (200)"},
        {"sobel", "{op: Sobel, inputs: {image: image}, params: {size: 4}}", "param 'size': size must be 1, 3, 5 or 7"},
        {"equalize", "{op: Equalize, inputs: {image: image}, params: {method: clahe, tiles: 0}}", "param 'tiles' = 0 is out of range"},
        {"blend", "{op: Blend, inputs: {image: image, top: image}, params: {opacity: 2}}", "param 'opacity' = 2 is out of range"},
        {"composite", "{op: Composite, inputs: {image: image, overlay: image}, params: {opacity: -1}}", "param 'opacity' = -1 is out of range"},
        {"split", "{op: SplitChannels, inputs: {image: image}, params: {channel: red}}", "unknown param 'channel'"},
        {"merge", "{op: MergeChannels, inputs: {red: split.red, green: split.green, blue: split.blue}, params: {alpha: 1}}", "unknown param 'alpha'"},
        {"text", "{op: DrawText, inputs: {image: image}, params: {text: ''}}", "param 'text': text is empty"},
        {"statistics", "{op: Statistics, inputs: {image: image}, params: {bins: 3}}", "unknown param 'bins'"},
        {"histogram", "{op: Histogram, inputs: {image: image}, params: {low: 1, high: 0}}", "param 'high': high (0) must be above low (1)"},
    };
    ScratchDir dir;
    std::string graph = std::string("fieldflow: 1\nnodes:\n  image: {op: ReadImage, params: {path: ") + kPhoto + "}}\n";
    for (const Case& c : cases) graph += std::string("  ") + c.node + ": " + c.yaml + "\n";
    const fs::path file = dir.path() / "bad.yaml";
    write_text(file, graph);
    const ff::test::CommandResult check = fieldflow("check " + file.string());
    EXPECT_EQ(check.exit_code, 2) << check.output;
    int line = 4; // the first case's line
    for (const Case& c : cases) {
        const std::string where = file.string() + ":" + std::to_string(line++) + ":";
        const std::string node = std::string("error: node '") + c.node + "'";
        const size_t at = check.output.find(where);
        ASSERT_NE(at, std::string::npos) << c.node << " at " << where << "\n" << check.output;
        const std::string report = check.output.substr(at, check.output.find('\n', at) - at);
        EXPECT_NE(report.find(node), std::string::npos) << report;
        EXPECT_NE(report.find(c.says), std::string::npos) << report;
    }
    EXPECT_NE(check.output.find(std::to_string(std::size(cases)) + " errors"), std::string::npos) << check.output;
}

TEST(ImageOpsGraph, AChainOfOpsRunsOnAPhoto) {
    ScratchDir dir;
    const fs::path out = dir.path() / "out";
    const fs::path file = dir.path() / "chain.yaml";
    write_text(file, std::string("fieldflow: 1\nnodes:\n") +
                         "  photo: {op: ReadImage, params: {path: " + kPhoto + "}}\n"
                         "  crop: {op: Crop, inputs: {image: photo}, params: {x: 300, y: 200, width: 64, height: 48}}\n"
                         "  stats: {op: Statistics, inputs: {image: crop}}\n"
                         "  save_stats: {op: WriteJson, inputs: {json: stats}, params: {path: " + (out / "stats.json").string() + "}}\n"
                         "  split: {op: SplitChannels, inputs: {image: crop}}\n"
                         "  merge: {op: MergeChannels, inputs: {red: split.blue, green: split.green, blue: split.red}}\n"
                         "  rotate: {op: Rotate, inputs: {image: merge}, params: {angle: 30}}\n"
                         "  clahe: {op: Equalize, inputs: {image: rotate}, params: {method: clahe}}\n"
                         "  edges: {op: Canny, inputs: {image: clahe}}\n"
                         "  text: {op: DrawText, inputs: {image: clahe}, params: {text: leuven, size: 0.5}}\n"
                         "  save_edges: {op: WriteImage, inputs: {image: edges}, params: {path: " + (out / "edges.png").string() + "}}\n"
                         "  save_text: {op: WriteImage, inputs: {image: text}, params: {path: " + (out / "text.png").string() + "}}\n"
                         "  swapped: {op: WriteImage, inputs: {image: merge}, params: {path: " + (out / "swapped.png").string() + "}}\n");
    const ff::test::CommandResult run = fieldflow("run --no-cache -q " + file.string());
    ASSERT_EQ(run.exit_code, 0) << run.output;

    const cv::Mat photo = cv::imread(kPhoto, cv::IMREAD_COLOR)(cv::Rect(300, 200, 64, 48)); // BGR
    // Red and blue swapped by SplitChannels -> MergeChannels: the file holds the photo's BGR as RGB.
    cv::Mat swapped = cv::imread((out / "swapped.png").string(), cv::IMREAD_UNCHANGED), expected;
    cv::cvtColor(photo, expected, cv::COLOR_BGR2RGB);
    EXPECT_EQ(cv::norm(swapped, expected, cv::NORM_INF), 0.0);
    // Canny's map: one 8-bit channel of 0 and 255, on the rotated 64x48 crop's canvas.
    const cv::Mat edges = cv::imread((out / "edges.png").string(), cv::IMREAD_UNCHANGED);
    EXPECT_EQ(edges.type(), CV_8UC1);
    EXPECT_EQ(edges.size(), cv::Size(80, 74)); // ceil(64 cos 30 + 48 sin 30) x ceil(64 sin 30 + 48 cos 30)
    EXPECT_GT(cv::countNonZero(edges), 20);
    EXPECT_EQ(cv::countNonZero(edges == 255) , cv::countNonZero(edges));
    EXPECT_EQ(cv::imread((out / "text.png").string(), cv::IMREAD_UNCHANGED).size(), cv::Size(80, 74));
    // Statistics of the crop, as OpenCV computes them on the JPEG's samples.
    std::ifstream stream(out / "stats.json");
    const nlohmann::json stats = nlohmann::json::parse(stream);
    cv::Scalar mean, stddev;
    cv::meanStdDev(photo, mean, stddev);
    EXPECT_EQ(stats["pixels"], 64 * 48);
    EXPECT_NEAR(stats["channels"]["red"]["mean"].get<double>(), mean[2] / 255.0, 1e-6);
    EXPECT_NEAR(stats["channels"]["blue"]["stddev"].get<double>(), stddev[0] / 255.0, 1e-6);
}
