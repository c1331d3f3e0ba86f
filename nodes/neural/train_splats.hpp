// TrainSplats' model: N 2D Gaussians fitted to the image on the splat engine
// (kernels/include/fieldflow/engine/splats.hpp), as the training loop's Learner; and Infer's
// rendering of a splat model.
#pragma once

#include "training_run.hpp"

#include <fieldflow/engine/splats.hpp>
#include <fieldflow/node.hpp>

#include <memory>

namespace ff::neural {

// True when this build links the splat engine (its sources were present at configure time).
bool splats_available();

// Throws ff::Error("splat model not available in this build") when splats_available() is false.
std::unique_ptr<Learner> splat_learner(const TrainParams& params, const ff::engine::ImageData& image,
                                       const ff::engine::Device& device);

// Renders a splat model (Infer); same availability rule.
std::vector<float> render_splat_model(const ff::engine::Device& device,
                                      const ff::engine::SplatModel& model, uint32_t width,
                                      uint32_t height);

} // namespace ff::neural
