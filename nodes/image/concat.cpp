// Concat: images placed in a row, a column or a grid, at their own size (no scaling; Compare
// scales and labels).
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>

namespace {

constexpr int kMaxInputs = 6;
const char* const kPorts[kMaxInputs] = {"image1", "image2", "image3", "image4", "image5", "image6"};

} // namespace

FF_NODE(concat) =
    ff::op("Concat", "image")
        .doc("Places 2 to 6 images in a grid of `columns` columns (default: all in one row; 1: a "
             "column), in input order, each at its own size in a cell as large as the largest "
             "image, the rest of the cell filled with `background`.")
        .input("image1", ff::kImage, "first image")
        .input("image2", ff::kImage, "second image")
        .optional_input("image3", ff::kImage, "third image")
        .optional_input("image4", ff::kImage, "fourth image")
        .optional_input("image5", ff::kImage, "fifth image")
        .optional_input("image6", ff::kImage, "sixth image")
        .output("image", ff::kImage, "the grid")
        .param_int("columns", 0, 0, kMaxInputs, "images per row; 0: all in one row")
        .param_float("background", 0.0, 0.0, 1.0, "gray level of the empty parts of cells")
        .execute([](ff::Node& node) {
            std::vector<cv::Mat> images;
            for (const char* port : kPorts)
                if (auto image = node.optional_image(port)) images.push_back(ff::nodes::rgb_mat(*image, port));
            const int n = int(images.size());
            const int columns = node.integer("columns") ? std::min<int>(int(node.integer("columns")), n) : n;
            const int rows = (n + columns - 1) / columns;
            cv::Size cell(0, 0);
            for (const cv::Mat& m : images) cell = cv::Size(std::max(cell.width, m.cols), std::max(cell.height, m.rows));
            cv::Mat out = ff::nodes::output_mat(node, "image", cv::Size(cell.width * columns, cell.height * rows));
            out.setTo(cv::Scalar::all(node.number("background")));
            for (int i = 0; i < n; ++i)
                images[i].copyTo(out(cv::Rect(i % columns * cell.width, i / columns * cell.height,
                                              images[i].cols, images[i].rows)));
        });
