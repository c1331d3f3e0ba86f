// Train with `model: splats`: N 2D Gaussians fitted to the image on the splat engine
// (kernels/include/fieldflow/engine/splats.hpp). Outputs the same ports as the grid model: the model
// file (kind splats) and the statistics.
#pragma once

#include "train_params.hpp"

#include <fieldflow/engine/splats.hpp>
#include <fieldflow/node.hpp>

namespace ff::neural {

// True when this build links the splat engine (its sources were present at configure time).
bool splats_available();

// Throws ff::Error("splat model not available in this build") when splats_available() is false.
void train_splats(Node& node, const TrainParams& params, const ff::engine::ImageData& image,
                  const ff::engine::Device& device);

// Renders a splat model (Infer); same availability rule.
std::vector<float> render_splat_model(const ff::engine::Device& device,
                                      const ff::engine::SplatModel& model, uint32_t width,
                                      uint32_t height);

} // namespace ff::neural
