// Crop: a rectangle of the image.
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

FF_NODE(crop) =
    ff::op("Crop", "image")
        .doc("Cuts out the rectangle of width x height pixels whose top-left corner is (x, y). "
             "A width or height of 0 takes the rest of the image from x or y. multiple_of shortens "
             "both sides to multiples of it (dropping columns on the right and rows at the "
             "bottom): an image a shrink by that factor covers whole, with nothing shifted.")
        .input("image", ff::kImage, "image to crop")
        .output("image", ff::kImage, "the rectangle")
        .param_int("x", 0, 0, 1 << 16, "left edge in pixels")
        .param_int("y", 0, 0, 1 << 16, "top edge in pixels")
        .param_int("width", 0, 0, 1 << 16, "width in pixels; 0: to the right edge")
        .param_int("height", 0, 0, 1 << 16, "height in pixels; 0: to the bottom edge")
        .param_int("multiple_of", 1, 1, 4096, "shorten width and height to multiples of this")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const int x = int(node.integer("x")), y = int(node.integer("y"));
            if (x >= in.cols) throw ff::ParamError("x", "x = " + std::to_string(x) + " is outside the " +
                                                            ff::nodes::size_text(in.size()) + " image");
            if (y >= in.rows) throw ff::ParamError("y", "y = " + std::to_string(y) + " is outside the " +
                                                            ff::nodes::size_text(in.size()) + " image");
            int w = node.integer("width") ? int(node.integer("width")) : in.cols - x;
            int h = node.integer("height") ? int(node.integer("height")) : in.rows - y;
            if (x + w > in.cols)
                throw ff::ParamError("width", "x + width = " + std::to_string(x + w) +
                                                  " is past the image's width " + std::to_string(in.cols));
            if (y + h > in.rows)
                throw ff::ParamError("height", "y + height = " + std::to_string(y + h) +
                                                   " is past the image's height " + std::to_string(in.rows));
            const int multiple = int(node.integer("multiple_of"));
            if (w < multiple || h < multiple)
                throw ff::ParamError("multiple_of", "multiple_of = " + std::to_string(multiple) + " is larger than the " +
                                                        std::to_string(w) + "x" + std::to_string(h) + " rectangle: each side needs at least " +
                                                        std::to_string(multiple) + " pixels (give a larger image, or a smaller multiple_of)");
            w -= w % multiple;
            h -= h % multiple;
            in(cv::Rect(x, y, w, h)).copyTo(ff::nodes::output_mat(node, "image", cv::Size(w, h)));
        });
