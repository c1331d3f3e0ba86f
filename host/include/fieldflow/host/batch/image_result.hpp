// One image's outcome: a line of the manifest and a row of the summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

inline constexpr const char* kStatusDone = "done";
inline constexpr const char* kStatusFailed = "failed";
inline constexpr const char* kStatusNotRun = "not run"; // interrupted before it finished

// The numbers a finished image's metrics.json holds. The learned/bilinear pairs come from the
// Report node (graphs/lake.yaml); plain psnr/ssim from the Metrics node (graphs/baseline.yaml).
struct ImageMetrics {
    std::optional<double> psnr_learned, psnr_bilinear, ssim_learned, ssim_bilinear;
    std::optional<double> psnr, ssim;
    std::optional<uint64_t> steps, model_bytes;
    std::optional<double> train_seconds;
    std::string device; // the device the model was trained on, as the node names it

    // psnr_learned - psnr_bilinear, when both are known.
    std::optional<double> psnr_gain() const;
    bool operator==(const ImageMetrics&) const = default;
};

// A run of an image that failed because of its device, after which the image ran on another.
struct FailedAttempt {
    std::string device; // its --device
    std::string error;  // why it failed
    std::string log;    // its log, relative to the summary
    bool operator==(const FailedAttempt&) const = default;
};

struct ImageResult {
    std::string stem;
    std::string input;      // the image file's path
    std::string status;     // kStatusDone, kStatusFailed or kStatusNotRun
    std::string error;      // why it failed
    std::string input_hash; // XXH3-128 of the file's bytes, hex
    std::string graph_hash; // XXH3-128 of the graph text and the --set values, hex
    std::string shard;      // "I/N" when run as a shard, else empty
    double seconds = 0.0;   // wall time of the image's run
    std::string folder;     // the outputs' folder, relative to the summary ("" if none)
    std::string report;     // report.html relative to the summary ("" if none)
    std::string log;        // the run's log relative to the summary ("" if none)
    ImageMetrics metrics;
    std::string ran_on;     // the --device of its last run ("" when the batch named no devices)
    std::vector<FailedAttempt> retried_after; // earlier runs on devices that failed, in order
};

} // namespace fieldflow::host::batch
