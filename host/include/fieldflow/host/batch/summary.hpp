// The batch summary: summary.csv, summary.json and index.html in the output folder, each written
// to a temp file and renamed into place. `--merge` reads shard summaries back.
#pragma once

#include <fieldflow/host/batch/image_result.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fieldflow::host::batch {

struct SummaryInfo {
    std::string graph;               // the graph file
    std::string shard;               // "I/N" for a shard's summary, else empty
    std::vector<std::string> merged; // the folders a merged summary combines
    bool interrupted = false;        // the batch stopped before every image ran
    // Devices the batch took out of the rotation (their --device), each with the failure that did it.
    std::vector<std::pair<std::string, std::string>> devices_out;
};

struct SummaryTotals {
    size_t images = 0, done = 0, failed = 0, not_run = 0;
    // Arithmetic means over the done images that have the value. Mean PSNR is the mean of the
    // per-image PSNRs in dB (not the PSNR of the pooled error).
    std::optional<double> psnr_learned, psnr_bilinear, psnr_gain, ssim_learned, ssim_bilinear,
        psnr, ssim, train_seconds;
};

// Where a retried image ran: "failed on device 7, then done on device 0". Empty when it was not
// retried.
std::string retry_story(const ImageResult& r);

SummaryTotals summary_totals(const std::vector<ImageResult>& results);

// Rows in the order given. Throws std::runtime_error on I/O errors.
void write_summary(const std::filesystem::path& dir, const std::vector<ImageResult>& results,
                   const SummaryInfo& info);

struct SummaryFile {
    SummaryInfo info;
    std::vector<ImageResult> results;
};

// Reads a summary.json written by write_summary. Throws std::runtime_error saying what is wrong.
SummaryFile read_summary_json(const std::filesystem::path& file);

// Writes `text` to `path` through a temp file in the same folder, fsync'd, then renamed.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

} // namespace fieldflow::host::batch
