#include "model_alternative.hpp"

#include "common/grid_size.hpp"
#include "number_text.hpp"
#include "train_params.hpp"

#include <fieldflow/engine/encoding_names.hpp>
#include <fieldflow/engine/engine.hpp>

namespace ff::neural {

namespace fe = ff::engine;

namespace {
// Above this many weights the other model is not encoded here (a dense grid of a gigapixel photo
// would take gigabytes): its bytes are the run's file less its weights plus the other's weights.
constexpr uint64_t kMaxEncodedWeights = 1ull << 24;

uint64_t weights_bytes(uint64_t weights, fe::WeightPrecision precision) {
    return weights * (precision == fe::WeightPrecision::fp16 ? 2 : 4);
}
} // namespace

std::optional<ModelAlternative> model_alternative(const fe::ModelFile& ran) {
    if (ran.kind != fe::ModelKind::grid) return std::nullopt;
    const fe::ModelConfig defaults;
    fe::ModelFile other = ran;
    fe::ModelConfig& c = other.model.config;
    ModelAlternative alt;
    if (c.encoding.kind == fe::EncodingKind::dense_grid) {
        c.encoding.kind = fe::EncodingKind::hash_grid;
        c.encoding.hash = defaults.encoding.hash;
        c.grid_width = c.grid_height = 0;
        c.encoding.hash.log2_table_size = hash_table_for_count(c, ran.model.parameter_count());
        alt.set = "encoding=" + std::string(fe::encoding_name(c.encoding.kind));
    } else if (c.encoding.kind == fe::EncodingKind::hash_grid) {
        c.encoding = defaults.encoding;
        c.grid_channels = defaults.grid_channels;
        const ff::nodes::GridSize grid = ff::nodes::auto_grid_size(ran.image_width, ran.image_height);
        c.grid_width = grid.width;
        c.grid_height = grid.height;
        alt.set = "encoding=" + std::string(fe::encoding_name(c.encoding.kind));
    } else {
        return std::nullopt;
    }
    if (!c.validate().empty()) return std::nullopt;
    alt.summary = fe::model_summary(c);
    alt.parameters = c.parameter_count();
    const uint64_t weights = fe::encoding_float_count(c) + fe::mlp_float_count(c);
    if (weights <= kMaxEncodedWeights) {
        other.model.encoding_params.assign(fe::encoding_float_count(c), 0.0f);
        other.model.mlp.assign(fe::mlp_float_count(c), 0.0f);
        alt.bytes = fe::encode_model_file(other).size();
    } else {
        const uint64_t ran_weights = ran.model.encoding_params.size() + ran.model.mlp.size();
        alt.bytes = fe::encode_model_file(ran).size() - weights_bytes(ran_weights, ran.precision) +
                    weights_bytes(weights, ran.precision);
        alt.bytes_exact = false;
    }
    return alt;
}

ReportNote model_note(const fe::ModelFile& ran, uint64_t ran_bytes, const std::optional<ModelAlternative>& other) {
    const std::string precision(fe::weight_precision_name(ran.precision));
    std::string text = fe::model_summary(ran.model.config) + ": " + grouped(ran.model.parameter_count()) +
                       " parameters, " + grouped(ran_bytes) + " bytes as stored (" + precision + " weights).";
    if (other) {
        text += " The other encoding (--set " + other->set + "), " + other->summary + ", would have " +
                grouped(other->parameters) + " parameters and " + (other->bytes_exact ? "" : "about ") +
                grouped(other->bytes) + " bytes (" + precision + ").";
    }
    return {"Model:", text};
}

} // namespace ff::neural
