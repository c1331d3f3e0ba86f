// Per-row work on a large image done in bands of rows, with a cancellation check between bands,
// so that no single step lasts long: on an 8192x8192 float RGB image one pass over freshly
// allocated memory takes seconds on a small machine (every page is faulted in), and a node must
// answer a cancel within a moment. Bands also keep a pass's working set in cache.
#pragma once

#include <fieldflow/node.hpp>

#include <cstddef>
#include <functional>

namespace ff::nodes {

// About this many bytes per band (of the widest image a band step touches).
inline constexpr size_t kBandBytes = size_t(8) << 20;

// Rows per band for rows of `row_bytes` bytes: about kBandBytes' worth, at least 1.
int band_rows(size_t row_bytes);

// Calls work(first_row, end_row) for consecutive bands of band_rows(row_bytes) rows covering
// [0, rows), in order; node.throw_if_cancelled() before each band, and progress(end_row, rows)
// after each.
void for_each_band(const Node& node, int rows, size_t row_bytes,
                   const std::function<void(int first, int end)>& work,
                   const std::function<void(int done, int rows)>& progress = {});

} // namespace ff::nodes
