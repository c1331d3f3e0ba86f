#include "training_progress_text.hpp"

#include "psnr.hpp"

#include <cmath>
#include <cstdio>

namespace ff::neural {
namespace {

// Weight of the newest chunk: the batch loss of one step is noisy (a random sample of pixels).
constexpr double kSmoothing = 0.3;

std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

} // namespace

void TrainingProgressText::add_loss(double loss) {
    if (!std::isfinite(loss) || loss <= 0) return;
    smoothed_loss_ = smoothed_loss_ ? (1 - kSmoothing) * *smoothed_loss_ + kSmoothing * loss : loss;
}

void TrainingProgressText::add_eval(double psnr, uint32_t step) {
    eval_psnr_ = psnr;
    eval_step_ = step;
}

std::optional<double> TrainingProgressText::smoothed_loss_db() const {
    if (!smoothed_loss_) return std::nullopt;
    return psnr_from_mse(*smoothed_loss_);
}

std::string TrainingProgressText::text(double loss) const {
    // The measured figure first and the loss last: a narrow terminal cuts the end of the line.
    std::string text;
    if (eval_psnr_) text = format("%.2f", *eval_psnr_) + " dB at step " + std::to_string(eval_step_) + ", ";
    if (auto db = smoothed_loss_db()) text += "~" + format("%.2f", *db) + " dB from the loss, ";
    return text + "loss " + format("%.2e", loss);
}

} // namespace ff::neural
