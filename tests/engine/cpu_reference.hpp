// Double-precision CPU reference of the engine's encoding, MLP forward and backward (tests only).
// The encoding is its descriptor's reference (kernels/src/encodings/); the MLP mirrors mlp.glsl
// term by term.
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <vector>

namespace ff::engine::reference {

// Network output (output_dims values) at (u, v).
std::vector<double> forward(const Model& model, double u, double v);

struct Gradients {
    double loss = 0;               // mean over samples and output channels of the squared error
    std::vector<double> outputs;   // samples x output_dims
    std::vector<double> grad_mlp;  // same layout as Model::mlp
    std::vector<double> grad_encoding; // same layout as Model::encoding_params
};

// uv: 2 per sample; targets: output_dims per sample.
Gradients forward_backward(const Model& model, const std::vector<double>& uv,
                           const std::vector<double>& targets);

// The loss alone, with the parameters given in double (for finite differences).
double loss(const ModelConfig& config, const std::vector<double>& mlp,
            const std::vector<double>& grid, const std::vector<double>& uv,
            const std::vector<double>& targets);

} // namespace ff::engine::reference
