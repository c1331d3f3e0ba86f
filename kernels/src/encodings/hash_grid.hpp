// The per-level layout of a hash_grid encoding, shared by its descriptor, the shader defines and
// tools that must index the table the same way (tests, benchmarks).
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <cstdint>
#include <vector>

namespace ff::engine::detail {

struct HashLevel {
    uint32_t resolution = 0; // cells per side; vertices (resolution + 1)^2
    uint32_t entries = 0;    // table rows of this level: the vertices if they fit, else 2^log2_table_size
    uint64_t offset = 0;     // first row of this level in the whole table
    bool dense = false;      // indexed as y * (resolution + 1) + x instead of hashed
};

std::vector<HashLevel> hash_levels(const HashGridConfig& h);

// Table row of vertex (x, y) within its level (the shader's hash_row()).
uint32_t hash_row(const HashLevel& level, const HashGridConfig& h, uint32_t x, uint32_t y);

} // namespace ff::engine::detail
