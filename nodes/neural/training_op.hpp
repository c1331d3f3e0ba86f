// What the training ops (Train, TrainSiren, TrainSplats) share as ops: the image input, the model
// and stats outputs, disk caching, the device opened early, the estimate of the work said before
// it runs, the CPU budget, and the training loop (training_run.hpp). Each op adds its params and
// its model's Learner.
#pragma once

#include "train_params.hpp"
#include "training_run.hpp"

#include <fieldflow/node.hpp>

#include <functional>
#include <memory>

namespace ff::neural {

using LearnerFactory = std::function<std::unique_ptr<Learner>(Node&, const TrainParams&,
                                                              const ff::engine::ImageData&,
                                                              const ff::engine::Device&)>;

// The op `name` learning the model `choice` names: `doc` says what it learns, `declare` adds its
// params (train_params.hpp), `learner` makes its model's Learner.
OpBuilder training_op(std::string name, ModelChoice choice, std::string doc,
                      OpBuilder& (*declare)(OpBuilder&), LearnerFactory learner);

} // namespace ff::neural
