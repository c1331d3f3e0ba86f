// What the report shows of the images, computed from the full-resolution 8-bit images: views
// scaled down to a bounded size (the page's size must not grow with the image), the error maps on
// one shared colour scale, the 1:1 crops where each of learned and bilinear wins most, and the small
// picture the batch index shows.
#pragma once

#include "report_page.hpp"

#include <opencv2/core.hpp>

#include <functional>

namespace ff::neural {

// The three images the report compares, 8-bit RGB of one size, and their per-pixel absolute
// errors against the truth (CV_32FC1, [0, 1], see ff::metrics::absolute_error).
struct ReportImages {
    cv::Mat truth, bilinear, learned;
    cv::Mat bilinear_error, learned_error;
    // Further images the crops show beside them (the codecs at the model's bytes), with labels.
    std::vector<std::pair<std::string, cv::Mat>> others;
};

// The top of the shared colour scale of both error maps: the error 99.5% of their pixels stay
// below.
float shared_error_scale(const ReportImages& images);

// The side of the blocks the page counts wins in ("where each wins") and finds bilinear's crops by.
constexpr int kWinBlock = 8;

// Each whole `block` x `block` block's sum of squared 8-bit errors (all channels) of bilinear and
// of learned against the truth, CV_64FC1 (exact integers), one value per block; empty when the
// image holds no whole block.
struct BlockErrors {
    cv::Mat bilinear, learned;
};
BlockErrors block_squared_errors(const ReportImages& images, int block);

// The 1:1 crops. First the `per_side` non-overlapping square tiles (side `side`, clipped to the
// image) where the learned image's mean squared error is lowest against bilinear's (largest gain
// first, only where learned is closer); then up to `per_side` non-overlapping square windows of
// whole kWinBlock blocks (at most `side`) where bilinear's summed squared error is lowest against
// learned's (best_block_windows: the window's side follows the cluster of blocks bilinear wins
// in), so wherever bilinear is closer in a block there is a crop where it is closer as a whole.
// Each holds every image's full-resolution pixels (truth, bilinear, learned, then `others`) and
// their PSNRs there. `win_blocks`: block_squared_errors(images, kWinBlock), which the page's block
// counts use too, so the pass over the pixels is made once; smaller blocks are summed here only
// when `side` is under kWinBlock.
std::vector<ReportCrop> regions_where_each_wins(const ReportImages& images, int side, int per_side,
                                                const BlockErrors& win_blocks);

// The side of the crops for an image of this size: 160 pixels, less for small images (half the
// shorter side: room for 2x2 regions).
int crop_side(cv::Size image);

// The image scaled (area averaging) so its longer side is at most `max_side`; unchanged when it
// already is. view_size: the size view_of gives, without scaling anything.
cv::Mat view_of(const cv::Mat& image, int max_side);
cv::Size view_size(cv::Size image, int max_side);

// The error map shown in the page: the error scaled down like the views, then coloured.
PngBytes error_view_png(const cv::Mat& error, int max_side, float scale);

// Where each wins, as the page shows it beside the error maps: per pixel the bilinear error minus
// the learned one, scaled down like the views, coloured by win_colour at `scale` (full colour).
PngBytes win_map_png(const ReportImages& images, int max_side, float scale);

// The full-colour difference of the win map: what 99% of the pixels' |gains| stay below (at least
// one 8-bit level).
float win_scale(const ReportImages& images);

// The colour of a gain g in [-1, 1]: white at 0, towards green as learned gains (g > 0), towards
// magenta as it loses. RGB.
cv::Vec3b win_colour(float g);

// The fractions of the blocks of `errors` (the image's whole blocks) where the learned image's
// squared error is lower than bilinear's, and where it is higher.
std::pair<double, double> block_wins(const BlockErrors& errors);

// The batch index's picture of one image: the learned image and, right of it, where it gained on
// bilinear (green: the learned pixel is closer to the truth; magenta: the bilinear one is), each
// at most `max_height` pixels high and 4 times that wide (aspect kept, sides at least 1). PNG bytes.
PngBytes index_thumbnail(const ReportImages& images, int max_height);

// 8-bit RGB -> PNG bytes, OpenCV's quickest (png_size.hpp's kPngFastest): the page is built once
// and read by a browser, so the encode's time matters more than the bytes a higher level saves.
PngBytes rgb8_png(const cv::Mat& rgb8);

// Runs the encodes on OpenCV's worker threads, results in order; an exception in one is rethrown here.
std::vector<PngBytes> encode_in_parallel(const std::vector<std::function<PngBytes()>>& encodes);

} // namespace ff::neural
