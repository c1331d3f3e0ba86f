// The Train node's log: one row per engine call (step, loss, PSNR where measured, speed), written
// as CSV and drawn as a loss/PSNR curve picture.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

struct TrainingLogRow {
    uint32_t step = 0;
    double loss = 0;                // training-batch MSE of the step
    std::optional<double> psnr;     // full-image PSNR (dB), at evaluation steps only
    double steps_per_second = 0;    // over the engine call that ended at this step
    double elapsed_seconds = 0;     // training time so far
};

class TrainingLog {
public:
    void add(const TrainingLogRow& row) { rows_.push_back(row); }
    const std::vector<TrainingLogRow>& rows() const { return rows_; }

    // "step,loss,psnr,steps_per_second,elapsed_seconds" then one line per row; psnr empty where
    // not measured.
    std::string csv() const;

    // Loss (log scale, left axis) and PSNR (right axis) against step (log scale once training is
    // long enough to need it), as an 8-bit BGR picture.
    cv::Mat curve(int width = 900, int height = 450) const;

    // Writes the CSV at `csv_path` and the curve beside it (same name, .png), both atomically.
    void write(const std::filesystem::path& csv_path) const;

    static std::filesystem::path curve_path(const std::filesystem::path& csv_path);

private:
    std::vector<TrainingLogRow> rows_;
};

} // namespace ff::neural
