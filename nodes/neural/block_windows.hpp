// Where one image beats another most, found on a grid of blocks: the square windows of whole blocks
// whose summed score is largest. The report uses it to find the regions where bilinear wins most,
// from the blocks' squared errors, at whatever size the blocks bilinear wins in cluster.
#pragma once

#include <opencv2/core.hpp>

#include <vector>

namespace ff::neural {

// Up to `count` non-overlapping square windows of the grid `score` (CV_64FC1, one value per
// block), each at most `max_side` blocks a side, whose scores sum to more than 0: the largest sum
// first, each next the largest among the windows that overlap none chosen before. The window's
// side is part of the search: a small cluster of high scores amid low ones gives a small window,
// a broad one a large window. Ties go to the larger window, then to the one whose centre is
// nearest the centroid of the positive scores inside it (the window centred on its cluster).
// In block units; empty when no window sums to more than 0.
std::vector<cv::Rect> best_block_windows(const cv::Mat& score, int max_side, int count);

} // namespace ff::neural
