#include "grid_size.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace ff::nodes {

GridSize auto_grid_size(uint32_t image_width, uint32_t image_height) {
    return {std::max<uint32_t>(kMinGridCells, image_width / kAutoGridDivisor),
            std::max<uint32_t>(kMinGridCells, image_height / kAutoGridDivisor)};
}

GridSize grid_with_values(uint64_t values, uint32_t channels, uint32_t image_width, uint32_t image_height) {
    const double cells = double(values) / std::max<uint32_t>(channels, 1);
    auto clamp_side = [](double side, uint32_t most) {
        return uint32_t(std::clamp<double>(std::floor(side), kMinGridCells, std::max(most, kMinGridCells)));
    };
    const uint32_t width = clamp_side(std::sqrt(cells * image_width / image_height), image_width);
    return {width, clamp_side(cells / width, image_height)};
}

GridSize grid_of_model(GridSize model_grid, uint64_t parameters, uint32_t channels, uint32_t image_width,
                       uint32_t image_height) {
    if (model_grid.width > 0 && model_grid.height > 0) return model_grid;
    return grid_with_values(parameters, channels, image_width, image_height);
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

uint32_t parse_side(std::string_view text, std::string_view spec) {
    text = trim(text);
    uint64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw Error("grid '" + std::string(spec) + "' is not 'auto', 'WxH' or 'W,H' with whole numbers");
    if (value < 1 || value > kMaxGridSide)
        throw Error("grid '" + std::string(spec) + "': each side must be between 1 and " +
                    std::to_string(kMaxGridSide));
    return uint32_t(value);
}

} // namespace

std::optional<GridSize> parse_grid_spec(std::string_view spec) {
    std::string_view text = trim(spec);
    if (text == "auto") return std::nullopt;
    size_t separator = text.find_first_of("xX,");
    if (separator == std::string_view::npos)
        throw Error("grid '" + std::string(spec) + "' is not 'auto', 'WxH' or 'W,H'");
    return GridSize{parse_side(text.substr(0, separator), spec),
                    parse_side(text.substr(separator + 1), spec)};
}

GridSize resolve_grid_size(std::string_view spec, uint32_t image_width, uint32_t image_height) {
    if (auto explicit_size = parse_grid_spec(spec)) return *explicit_size;
    return auto_grid_size(image_width, image_height);
}

} // namespace ff::nodes
