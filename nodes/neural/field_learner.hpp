// The Learner of the models the fused-MLP engine trains (fe::Trainer): Train's grid/hash field and
// TrainSiren's sine network, which differ only in their configuration.
#pragma once

#include "training_run.hpp"

#include <memory>

namespace ff::neural {

std::unique_ptr<Learner> field_learner(Node& node, const TrainParams& params,
                                       const ff::engine::ImageData& image, const ff::engine::Device& device);

} // namespace ff::neural
