// Morphology: erode, dilate and their combinations with a structuring element
// (cv::morphologyEx).
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

namespace {

int operation_code(const std::string& name) {
    if (name == "erode") return cv::MORPH_ERODE;
    if (name == "dilate") return cv::MORPH_DILATE;
    if (name == "open") return cv::MORPH_OPEN;
    if (name == "close") return cv::MORPH_CLOSE;
    if (name == "gradient") return cv::MORPH_GRADIENT;
    if (name == "tophat") return cv::MORPH_TOPHAT;
    return cv::MORPH_BLACKHAT;
}

int shape_code(const std::string& name) {
    if (name == "ellipse") return cv::MORPH_ELLIPSE;
    if (name == "cross") return cv::MORPH_CROSS;
    return cv::MORPH_RECT;
}

} // namespace

FF_NODE(morphology) =
    ff::op("Morphology", "image")
        .doc("Grey-level morphology (cv::morphologyEx) with a size x size rect, ellipse or cross: "
             "erode (the minimum around each pixel), dilate (the maximum), open (erode then "
             "dilate: removes small bright specks), close (dilate then erode: fills small dark "
             "holes), gradient (dilate - erode: outlines), tophat (image - open), blackhat (close "
             "- image), `iterations` times. Pixels past the edge never win. Exact at every depth. "
             "Gray, RGB and RGBA keep their channels (alpha is processed too).")
        .input("image", ff::kImage, "image to process")
        .output("image", ff::kImage, "processed image")
        .param_enum("operation", "erode", "erode|dilate|open|close|gradient|tophat|blackhat", "the operation")
        .param_enum("shape", "rect", "rect|ellipse|cross", "the structuring element's shape")
        .param_int("size", 3, 1, 255, "the structuring element's width and height in pixels")
        .param_int("iterations", 1, 1, 100, "how many times the erosions and dilations repeat")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            const int size = int(node.integer("size"));
            const cv::Mat element = cv::getStructuringElement(shape_code(node.string("shape")), cv::Size(size, size));
            const int operation = operation_code(node.string("operation"));
            const int iterations = int(node.integer("iterations"));
            ff::nodes::output_native(node, "image", ff::nodes::cancellable_filter(node, in, "filtering", [=](const cv::Mat& image) {
                cv::Mat out;
                cv::morphologyEx(image, out, operation, element, cv::Point(-1, -1), iterations);
                return out;
            }));
        });
