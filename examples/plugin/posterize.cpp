// Posterize: each channel rounded to one of `levels` evenly spaced values, a visible effect in a
// dozen lines of plain C++ (no library but the SDK).
#include <fieldflow/node.hpp>

#include <algorithm>
#include <cmath>

FF_NODE(posterize) =
    ff::op("Posterize", "image")
        .doc("Rounds every channel to one of `levels` evenly spaced values between 0 and 1.")
        .input("image", ff::kImage, "image to posterize")
        .output("image", ff::kImage, "posterized image")
        .param_int("levels", 4, 2, 256, "values per channel")
        .execute([](ff::Node& node) {
            const ff::ImageView in = node.image("image");
            const double steps = double(node.integer("levels") - 1);
            float* out = node.output_image("image", in.width, in.height, in.channels);
            for (size_t i = 0; i < in.value_count(); ++i) {
                const double v = std::clamp(double(in.pixels[i]), 0.0, 1.0);
                out[i] = float(std::round(v * steps) / steps);
            }
        });
