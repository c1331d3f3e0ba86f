// The detail on Train's progress line. The full-image PSNR is only measured at evaluations, so
// between them the line shows a PSNR derived from the training loss (the batch MSE, smoothed over
// recent chunks), marked as an estimate, next to the last measured figure labelled with its step:
// a number that follows training instead of one that stands still for hundreds of steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ff::neural {

class TrainingProgressText {
public:
    // Records a chunk's loss (the last step's batch MSE); non-finite values are ignored.
    void add_loss(double loss);
    // Records a full-image evaluation at `step`.
    void add_eval(double psnr, uint32_t step);

    // "25.36 dB at step 337, ~28.07 dB from the loss, loss 1.56e-03"
    std::string text(double loss) const;

    std::optional<double> smoothed_loss_db() const;

private:
    std::optional<double> smoothed_loss_;
    std::optional<double> eval_psnr_;
    uint32_t eval_step_ = 0;
};

} // namespace ff::neural
