// Synthesises a large "photo" from the OpenCV sample photos, for measuring the pipeline on real
// image content at any size (a 24-megapixel photo, 8192x8192, a gigapixel): a grid of square cells,
// each a sample photo scaled (area averaging, never enlarged past 1.5x) to cover it, randomly
// cropped and flipped, so every pixel has a photo's local statistics. Deterministic for a seed.
// The file is written under a temporary name and renamed, so it is complete or absent.
//
//   ff-make-mosaic --width W --height H --output FILE [--cell N] [--seed N] [--photos DIR]
//                  [--samples DIR]
//   ff-make-mosaic --list-samples      (the sample photos it uses, one path a line)
//
// --samples: where OpenCV's sample photos are (default: Debian's opencv-doc folder), for a machine
// that has a copy elsewhere; the same photos, hence the same mosaic.
//
// The format follows the extension (png, tif, jpg, ppm, ...). OpenCV's readers refuse images of
// more than 2^30 pixels unless OPENCV_IO_MAX_IMAGE_PIXELS says otherwise; the tool says so.
#include "cli_args.hpp"

#include "common/atomic_write.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr const char* kSampleFolder = "/usr/share/doc/opencv-doc/examples/data";
// The natural photos among the samples (no charts, logos, text or calibration boards).
constexpr const char* kSamplePhotos[] = {
    "leuvenA.jpg", "leuvenB.jpg", "graf1.png",       "graf3.png",       "baboon.jpg",
    "fruits.jpg",  "home.jpg",    "building.jpg",    "aero1.jpg",       "aero3.jpg",
    "starry_night.jpg", "butterfly.jpg", "apple.jpg", "orange.jpg",     "messi5.jpg",
    "squirrel_cls.jpg", "board.jpg", "stuff.jpg",    "pca_test1.jpg",   "ela_original.jpg",
    "aloeL.jpg",   "chicky_512.png", "HappyFish.jpg", "smarties.png",   "basketball1.png",
    "rubberwhale1.png", "lena.jpg"};

void usage(const std::string& problem) {
    if (!problem.empty()) std::fprintf(stderr, "ff-make-mosaic: %s\n", problem.c_str());
    std::fprintf(stderr, "usage: ff-make-mosaic --width W --height H --output FILE [--cell N] "
                         "[--seed N] [--photos DIR] [--samples DIR]\n       ff-make-mosaic --list-samples\n");
    std::exit(2);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The photos to tile with, as 8-bit BGR: every image file in `folder`, or the sample photos (in
// `samples`).
std::vector<cv::Mat> load_photos(const std::string& folder, const std::string& samples) {
    std::vector<std::string> paths;
    if (folder.empty()) {
        for (const char* name : kSamplePhotos) paths.push_back(samples + "/" + name);
    } else {
        std::error_code error;
        for (const auto& entry : fs::directory_iterator(folder, error))
            if (entry.is_regular_file()) paths.push_back(entry.path().string());
        std::sort(paths.begin(), paths.end()); // the same order, so the same mosaic, everywhere
    }
    std::vector<cv::Mat> photos;
    for (const std::string& path : paths) {
        if (!fs::is_regular_file(path) || !cv::haveImageReader(path)) continue;
        cv::Mat photo = cv::imread(path, cv::IMREAD_COLOR);
        if (!photo.empty() && photo.cols >= 64 && photo.rows >= 64) photos.push_back(photo);
    }
    return photos;
}

struct Cell {
    int photo = 0;
    double zoom = 1.0;  // on top of the scale that just covers the cell
    double fx = 0, fy = 0; // where the crop sits in the scaled photo, 0..1
    bool flip = false;
};

// Fills `cell_area` of `mosaic` with `photo`, scaled to cover it.
void paint(cv::Mat& mosaic, const cv::Rect& cell_area, int cell, const cv::Mat& photo, const Cell& c) {
    const double cover = std::max(double(cell) / photo.cols, double(cell) / photo.rows) * c.zoom;
    const cv::Size scaled(std::max(cell, int(photo.cols * cover + 0.5)),
                          std::max(cell, int(photo.rows * cover + 0.5)));
    cv::Mat resized;
    cv::resize(photo, resized, scaled, 0, 0, cover < 1.0 ? cv::INTER_AREA : cv::INTER_CUBIC);
    const int x = int(c.fx * (scaled.width - cell)), y = int(c.fy * (scaled.height - cell));
    cv::Mat crop = resized(cv::Rect(x, y, cell_area.width, cell_area.height));
    if (c.flip) cv::flip(crop, mosaic(cell_area), 1);
    else crop.copyTo(mosaic(cell_area));
}

} // namespace

int main(int argc, char** argv) {
    uint32_t width = 0, height = 0, cell = 512, seed = 1;
    std::string output, photo_folder, samples = kSampleFolder;
    if (argc == 2 && std::string(argv[1]) == "--list-samples") {
        for (const char* name : kSamplePhotos) std::printf("%s/%s\n", kSampleFolder, name);
        return 0;
    }
    ff::bench::ArgReader args(argc, argv, usage);
    while (args.next()) {
        if (args.key() == "--width") width = args.u32();
        else if (args.key() == "--height") height = args.u32();
        else if (args.key() == "--output") output = args.value();
        else if (args.key() == "--cell") cell = args.u32();
        else if (args.key() == "--seed") seed = args.u32();
        else if (args.key() == "--photos") photo_folder = args.value();
        else if (args.key() == "--samples") samples = args.value();
        else usage("unknown option " + args.key());
    }
    if (width == 0 || height == 0 || output.empty()) usage("--width, --height and --output are required");
    if (width > 1u << 20 || height > 1u << 20) usage("--width and --height are at most 1048576");
    if (cell < 16) usage("--cell must be at least 16");
    if (!cv::haveImageWriter(output)) usage("OpenCV cannot write '" + output + "' (its extension)");

    const std::vector<cv::Mat> photos = load_photos(photo_folder, samples);
    if (photos.empty()) {
        std::fprintf(stderr, "ff-make-mosaic: no photos found in %s\n",
                     photo_folder.empty() ? samples.c_str() : photo_folder.c_str());
        return 1;
    }

    // The cells' choices are drawn in one sequence first, so the mosaic does not depend on how
    // the painting is split over threads.
    const int columns = int((width + cell - 1) / cell), rows = int((height + cell - 1) / cell);
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<Cell> cells(size_t(columns) * size_t(rows));
    std::vector<int> order(photos.size());
    for (size_t i = 0; i < cells.size(); ++i) {
        if (i % order.size() == 0) { // every photo once per round, in a new order each round
            for (size_t k = 0; k < order.size(); ++k) order[k] = int(k);
            std::shuffle(order.begin(), order.end(), random);
        }
        Cell& c = cells[i];
        c.photo = order[i % order.size()];
        c.zoom = 1.0 + 0.5 * unit(random);
        c.fx = unit(random);
        c.fy = unit(random);
        c.flip = unit(random) < 0.5;
    }

    const auto start = std::chrono::steady_clock::now();
    cv::Mat mosaic(int(height), int(width), CV_8UC3);
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range& range) {
        for (int r = range.start; r < range.end; ++r)
            for (int c = 0; c < columns; ++c) {
                const cv::Rect area(c * int(cell), r * int(cell),
                                    std::min(int(cell), int(width) - c * int(cell)),
                                    std::min(int(cell), int(height) - r * int(cell)));
                const Cell& choice = cells[size_t(r) * size_t(columns) + size_t(c)];
                paint(mosaic, area, int(cell), photos[size_t(choice.photo)], choice);
            }
    });
    const double painted = seconds_since(start);

    const auto write_start = std::chrono::steady_clock::now();
    try {
        ff::nodes::atomic_write(output, [&](const fs::path& temporary) {
            if (!cv::imwrite(temporary.string(), mosaic))
                throw std::runtime_error("the encoder failed (too large for the format?)");
        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ff-make-mosaic: cannot write '%s': %s\n", output.c_str(), e.what());
        return 1;
    }
    std::error_code error;
    const auto bytes = fs::file_size(output, error);
    std::printf("%s: %ux%u (%.1f megapixels) from %zu photos in %dx%d cells; painted in %.1f s, "
                "written in %.1f s, %.1f MB\n",
                output.c_str(), width, height, double(width) * height / 1e6, photos.size(), cell,
                cell, painted, seconds_since(write_start), double(bytes) / 1e6);
    if (uint64_t(width) * height > (uint64_t(1) << 30))
        std::printf("note: over 2^30 pixels; OpenCV reads it only with OPENCV_IO_MAX_IMAGE_PIXELS "
                    "set above %llu\n", (unsigned long long)(uint64_t(width) * height));
    return 0;
}
