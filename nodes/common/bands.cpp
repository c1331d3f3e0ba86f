#include "bands.hpp"

#include <algorithm>

namespace ff::nodes {

int band_rows(size_t row_bytes) {
    if (row_bytes == 0) return 1 << 30;
    return int(std::max<size_t>(1, std::min<size_t>(kBandBytes / row_bytes, size_t(1) << 30)));
}

void for_each_band(const Node& node, int rows, size_t row_bytes,
                   const std::function<void(int first, int end)>& work,
                   const std::function<void(int done, int rows)>& progress) {
    const int step = band_rows(row_bytes);
    for (int first = 0; first < rows; first += step) {
        node.throw_if_cancelled();
        const int end = rows - first > step ? first + step : rows;
        work(first, end);
        if (progress) progress(end, rows);
    }
}

} // namespace ff::nodes
