// The feature-grid size rule, shared by BilinearBaseline and the neural Train node so that the
// baseline is always computed at exactly the grid resolution the model learns.
//
// `auto` = the image size divided by 4, rounded down, at least 2 cells per axis (the
// fewest a bilinearly sampled grid can have)
// (800x550 -> 200x137, 751x563 -> 187x140). An explicit size is "WxH" or "W,H" (e.g. "200x137").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ff::nodes {

inline constexpr uint32_t kAutoGridDivisor = 4;
inline constexpr uint32_t kMinGridCells = 2; // the engine interpolates between at least 2 nodes per axis
inline constexpr uint32_t kMaxGridSide = 65536;

struct GridSize {
    uint32_t width = 0;
    uint32_t height = 0;
    friend bool operator==(const GridSize&, const GridSize&) = default;
};

// The `auto` grid for an image of the given size.
GridSize auto_grid_size(uint32_t image_width, uint32_t image_height);

// Parses a grid spec: std::nullopt for "auto", the size for "WxH" / "W,H" (spaces allowed around
// the numbers, each in 1..kMaxGridSide). Throws ff::Error saying what is wrong otherwise; call it
// from an op's validate to reject a bad spec before anything runs.
std::optional<GridSize> parse_grid_spec(std::string_view spec);

// The largest grid of the image's aspect ratio holding at most `values` values at `channels` per
// cell (a baseline the size of a model: its parameter count), 2 to the image's size per axis.
GridSize grid_with_values(uint64_t values, uint32_t channels, uint32_t image_width, uint32_t image_height);

// The grid of a baseline as large as a model (grid 'model'): the model's own feature grid when it
// has one (a dense grid: the cells it learns, `model_grid` nonzero), else the largest grid holding
// at most as many values as the model has parameters (a hash grid's tables, a SIREN: no grid of
// their own).
GridSize grid_of_model(GridSize model_grid, uint64_t parameters, uint32_t channels, uint32_t image_width,
                       uint32_t image_height);

// The grid for `spec` and an image of the given size.
GridSize resolve_grid_size(std::string_view spec, uint32_t image_width, uint32_t image_height);

} // namespace ff::nodes
