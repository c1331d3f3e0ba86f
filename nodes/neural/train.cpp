// The training ops, one a model: Train learns the grid/hash field (the main job), TrainSiren a
// sine network and TrainSplats 2D Gaussian splats. They share their op declaration and training
// loop (training_op.hpp) and differ in their params (train_params.hpp) and Learner.
#include "field_learner.hpp"
#include "train_splats.hpp"
#include "training_op.hpp"

namespace ff::neural {

FF_NODE(train) = training_op(
    "Train", ModelChoice::grid,
    "Learns one image as a field: an encoding of the pixel coordinates, a feature grid sampled "
    "bilinearly (encoding: dense_grid), a multiresolution hash grid (hash_grid) or fixed "
    "sinusoids of the position (frequency), plus a small MLP, (u, v) -> RGB. Snapshots show the "
    "prediction and, for the dense grid, the feature grid (feature_at_<step>.png). The other "
    "models are the ops TrainSiren and TrainSplats.",
    declare_train_params, field_learner);

FF_NODE(train_siren) = training_op(
    "TrainSiren", ModelChoice::siren,
    "Learns one image as a SIREN: an MLP of sine layers on the pixel coordinates, "
    "hidden_width x hidden_layers, (u, v) -> RGB. Its JSON weights (SaveWeightsJson) load in "
    "other tools.",
    declare_siren_params, field_learner);

FF_NODE(train_splats) = training_op(
    "TrainSplats", ModelChoice::splats,
    "Learns one image as 2D Gaussian splats (position, covariance and colour each), fitted by "
    "rendering the whole image every step.",
    declare_splats_params,
    [](Node&, const TrainParams& params, const ff::engine::ImageData& image, const ff::engine::Device& device) {
        return splat_learner(params, image, device);
    });

} // namespace ff::neural
