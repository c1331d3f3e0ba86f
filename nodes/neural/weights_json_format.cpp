#include "weights_json_format.hpp"

#include <fieldflow/engine/encoding_names.hpp>
#include <fieldflow/node.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace ff::neural {

namespace fe = ff::engine;
using json = nlohmann::json;

namespace {

constexpr const char* kFormat = "fieldflow-weights";
constexpr int kJsonVersion = 1;

// Matrix l's logical and padded widths (engine.hpp's Model layout).
struct MatrixShape {
    uint32_t in, out, in_pad, out_pad;
};

// The encodings JSON weights hold: those whose configuration is the grid's size and flags written
// below (a dense grid, or none for a SIREN's coordinates). Any other, the hash grid and every
// encoding added later, keeps its own keys in the .ffm model file only, and is refused here rather
// than written as something it is not.
bool in_json_weights(fe::EncodingKind kind) {
    return kind == fe::EncodingKind::dense_grid || kind == fe::EncodingKind::coords;
}

std::vector<MatrixShape> shapes(const fe::ModelConfig& c) {
    std::vector<MatrixShape> s;
    for (uint32_t l = 0; l <= c.hidden_layers; ++l) {
        bool first = l == 0, last = l == c.hidden_layers;
        s.push_back({first ? c.input_width() : c.hidden_width, last ? c.output_dims : c.hidden_width,
                     first ? c.padded_input_width() : c.hidden_width,
                     last ? c.padded_output_width() : c.hidden_width});
    }
    return s;
}

float omega_of(const fe::ModelConfig& c, uint32_t l) {
    if (l == 0) return c.first_omega;
    return l < c.hidden_layers ? c.hidden_omega : 1.0f;
}

class Reader {
public:
    explicit Reader(std::string source) : source_(std::move(source)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw Error(source_ + ": " + path + " " + what);
    }
    const json& field(const json& object, const std::string& path, const char* key) const {
        if (!object.is_object()) fail(path, "is not an object");
        auto it = object.find(key);
        if (it == object.end()) fail(path, std::string("has no '") + key + "'");
        return *it;
    }
    uint64_t unsigned_value(const json& v, const std::string& path, uint64_t max) const {
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
            fail(path, "is not a non-negative integer");
        uint64_t n = v.get<uint64_t>();
        if (n > max) fail(path, "is " + std::to_string(n) + ", above " + std::to_string(max));
        return n;
    }
    float number(const json& v, const std::string& path) const {
        if (!v.is_number()) fail(path, "is not a number");
        double d = v.get<double>();
        if (!std::isfinite(d) || std::abs(d) > 3.0e38) fail(path, "is not a finite float");
        return float(d);
    }
    std::string text(const json& v, const std::string& path) const {
        if (!v.is_string()) fail(path, "is not a string");
        return v.get<std::string>();
    }
    std::vector<float> floats(const json& v, const std::string& path, size_t expected) const {
        if (!v.is_array()) fail(path, "is not an array");
        if (v.size() != expected)
            fail(path, "has " + std::to_string(v.size()) + " values, expected " + std::to_string(expected));
        std::vector<float> out;
        out.reserve(expected);
        for (size_t i = 0; i < v.size(); ++i) out.push_back(number(v[i], path + "[" + std::to_string(i) + "]"));
        return out;
    }

private:
    std::string source_;
};

// A layer's in, out, activation and omega repeat what the configuration fixes (the writer puts
// them there for people reading the file). Each one present must agree with the model: a file
// edited to another shape or frequency would otherwise load as something it does not say.
void check_layer_description(const Reader& r, const json& layer, const std::string& path,
                             const fe::ModelConfig& c, uint32_t l, const MatrixShape& shape) {
    if (!layer.is_object()) r.fail(path, "is not an object");
    for (auto [key, want] : {std::pair{"in", shape.in}, std::pair{"out", shape.out}}) {
        if (!layer.contains(key)) continue;
        const uint64_t got = r.unsigned_value(layer[key], path + "." + key, 1u << 20);
        if (got != want)
            r.fail(path + "." + key, "is " + std::to_string(got) +
                                         ", but the model's configuration gives " + std::to_string(want));
    }
    const bool last = l == c.hidden_layers;
    if (layer.contains("activation")) {
        const std::string got = r.text(layer["activation"], path + ".activation");
        const std::string want(fe::activation_name(last ? c.output_activation : c.hidden_activation));
        if (got != want)
            r.fail(path + ".activation", "is '" + got + "', but the model's " +
                                             (last ? "output_activation" : "hidden_activation") + " is '" +
                                             want + "'");
    }
    if (layer.contains("omega")) {
        const float got = r.number(layer["omega"], path + ".omega");
        const float want = omega_of(c, l);
        if (std::abs(got - want) > 1e-6f * std::max(1.0f, std::abs(want)))
            r.fail(path + ".omega", "is " + json(got).dump() + ", but the model gives " + json(want).dump() +
                                        (l == 0 ? " (first_omega)" : last ? " (the output layer's)" : " (hidden_omega)"));
    }
}

} // namespace

json weights_to_json(const fe::ModelFile& file) {
    json j = {{"format", kFormat}, {"version", kJsonVersion}, {"model", fe::model_kind_name(file.kind)},
              {"image_width", file.image_width}, {"image_height", file.image_height}};
    const fe::TrainingInfo& t = file.training;
    j["training"] = {{"steps", t.steps}, {"batch", t.batch}, {"seed", t.seed},
                     {"lr_mlp", t.lr_mlp}, {"lr_grid", t.lr_grid}, {"device", t.device},
                     {"kernel_path", t.kernel_path}, {"final_loss", t.final_loss},
                     {"final_psnr", t.final_psnr}, {"train_seconds", t.train_seconds}};
    if (file.kind == fe::ModelKind::splats) {
        j["splats"] = {{"count", file.splats.config.count}, {"params", file.splats.params}};
        return j;
    }
    const fe::ModelConfig& c = file.model.config;
    if (!in_json_weights(c.encoding.kind))
        throw Error("JSON weights hold dense_grid and coords models; a " + std::string(fe::encoding_name(c.encoding.kind)) +
                    " model is saved as a .ffm model file (SaveModel)");
    j["encoding"] = {{"kind", fe::encoding_name(c.encoding.kind)},
                     {"grid_width", c.grid_width}, {"grid_height", c.grid_height},
                     {"grid_channels", c.grid_channels}, {"subcell", c.encoding.subcell},
                     {"fourier_octaves", c.encoding.fourier_octaves}};
    j["hidden_width"] = c.hidden_width;
    j["hidden_layers"] = c.hidden_layers;
    j["hidden_activation"] = fe::activation_name(c.hidden_activation);
    j["output_activation"] = fe::activation_name(c.output_activation);
    j["output_dims"] = c.output_dims;
    j["first_omega"] = c.first_omega;
    j["hidden_omega"] = c.hidden_omega;
    json layers = json::array();
    size_t offset = 0;
    const std::vector<MatrixShape> s = shapes(c);
    for (uint32_t l = 0; l < s.size(); ++l) {
        json rows = json::array();
        for (uint32_t o = 0; o < s[l].out; ++o) {
            const float* row = file.model.mlp.data() + offset + size_t(o) * s[l].in_pad;
            rows.push_back(std::vector<float>(row, row + s[l].in));
        }
        const float* bias = file.model.mlp.data() + offset + size_t(s[l].out_pad) * s[l].in_pad;
        bool last = l + 1 == s.size();
        layers.push_back({{"in", s[l].in}, {"out", s[l].out},
                          {"activation", fe::activation_name(last ? c.output_activation : c.hidden_activation)},
                          {"omega", omega_of(c, l)}, {"weights", rows},
                          {"bias", std::vector<float>(bias, bias + s[l].out)}});
        offset += size_t(s[l].out_pad) * s[l].in_pad + s[l].out_pad;
    }
    j["layers"] = std::move(layers);
    j["grid"] = file.model.encoding_params;
    return j;
}

fe::ModelFile weights_from_json(const json& j, const std::string& source) {
    Reader r(source);
    if (r.text(r.field(j, "(top level)", "format"), "format") != kFormat)
        r.fail("format", std::string("is not '") + kFormat + "'");
    if (r.unsigned_value(r.field(j, "(top level)", "version"), "version", 1000) != kJsonVersion)
        r.fail("version", "is not " + std::to_string(kJsonVersion) + " (this build reads version 1)");
    fe::ModelFile file;
    const std::string kind = r.text(r.field(j, "(top level)", "model"), "model");
    if (kind == "grid") file.kind = fe::ModelKind::grid;
    else if (kind == "siren") file.kind = fe::ModelKind::siren;
    else if (kind == "splats") file.kind = fe::ModelKind::splats;
    else r.fail("model", "is '" + kind + "', expected grid, siren or splats");
    file.image_width = uint32_t(r.unsigned_value(r.field(j, "(top level)", "image_width"), "image_width", 1u << 20));
    file.image_height = uint32_t(r.unsigned_value(r.field(j, "(top level)", "image_height"), "image_height", 1u << 20));
    if (auto it = j.find("training"); it != j.end() && it->is_object()) {
        fe::TrainingInfo& t = file.training;
        const json& tj = *it;
        t.steps = uint32_t(tj.value("steps", 0u));
        t.batch = uint32_t(tj.value("batch", 0u));
        t.seed = tj.value("seed", uint64_t(0));
        t.lr_mlp = tj.value("lr_mlp", 0.0f);
        t.lr_grid = tj.value("lr_grid", 0.0f);
        t.device = tj.value("device", std::string());
        t.kernel_path = tj.value("kernel_path", std::string());
        t.final_loss = tj.value("final_loss", 0.0);
        t.final_psnr = tj.value("final_psnr", 0.0);
        t.train_seconds = tj.value("train_seconds", 0.0);
    }

    if (file.kind == fe::ModelKind::splats) {
        const json& sj = r.field(j, "(top level)", "splats");
        file.splats.config.count = uint32_t(r.unsigned_value(r.field(sj, "splats", "count"), "splats.count", 1u << 26));
        file.splats.width = file.image_width;
        file.splats.height = file.image_height;
        file.splats.params = r.floats(r.field(sj, "splats", "params"), "splats.params",
                                      size_t(file.splats.config.count) * fe::kSplatParams);
    } else {
        fe::ModelConfig& c = file.model.config;
        const json& e = r.field(j, "(top level)", "encoding");
        const std::string enc = r.text(r.field(e, "encoding", "kind"), "encoding.kind");
        const std::optional<fe::EncodingKind> kind = fe::find_encoding(enc);
        if (!kind || !in_json_weights(*kind)) r.fail("encoding.kind", "is '" + enc + "', expected dense_grid or coords");
        c.encoding.kind = *kind;
        c.grid_width = uint32_t(r.unsigned_value(r.field(e, "encoding", "grid_width"), "encoding.grid_width", 65536));
        c.grid_height = uint32_t(r.unsigned_value(r.field(e, "encoding", "grid_height"), "encoding.grid_height", 65536));
        c.grid_channels = uint32_t(r.unsigned_value(r.field(e, "encoding", "grid_channels"), "encoding.grid_channels", 64));
        const json& subcell = r.field(e, "encoding", "subcell");
        if (!subcell.is_boolean()) r.fail("encoding.subcell", "is not true or false");
        c.encoding.subcell = subcell.get<bool>();
        c.encoding.fourier_octaves = uint32_t(r.unsigned_value(r.field(e, "encoding", "fourier_octaves"), "encoding.fourier_octaves", 64));
        c.hidden_width = uint32_t(r.unsigned_value(r.field(j, "(top level)", "hidden_width"), "hidden_width", 1024));
        c.hidden_layers = uint32_t(r.unsigned_value(r.field(j, "(top level)", "hidden_layers"), "hidden_layers", 64));
        c.output_dims = uint32_t(r.unsigned_value(r.field(j, "(top level)", "output_dims"), "output_dims", 64));
        auto activation = [&](const char* key) {
            const std::string name = r.text(r.field(j, "(top level)", key), key);
            for (fe::Activation a : {fe::Activation::none, fe::Activation::relu, fe::Activation::sigmoid,
                                     fe::Activation::sine})
                if (fe::activation_name(a) == name) return a;
            r.fail(key, "is '" + name + "', expected none, relu, sigmoid or sine");
        };
        c.hidden_activation = activation("hidden_activation");
        c.output_activation = activation("output_activation");
        c.first_omega = r.number(r.field(j, "(top level)", "first_omega"), "first_omega");
        c.hidden_omega = r.number(r.field(j, "(top level)", "hidden_omega"), "hidden_omega");
        if (std::string problem = c.validate(); !problem.empty())
            throw Error(source + ": invalid configuration (" + problem + ")");

        const json& layers = r.field(j, "(top level)", "layers");
        const std::vector<MatrixShape> s = shapes(c);
        if (!layers.is_array() || layers.size() != s.size())
            r.fail("layers", "must be an array of " + std::to_string(s.size()) + " layers");
        c.hidden_width = c.hidden_width; // (validated above)
        size_t total = 0;
        for (const MatrixShape& m : s) total += size_t(m.out_pad) * m.in_pad + m.out_pad;
        file.model.mlp.assign(total, 0.0f);
        size_t offset = 0;
        for (size_t l = 0; l < s.size(); ++l) {
            const std::string path = "layers[" + std::to_string(l) + "]";
            check_layer_description(r, layers[l], path, c, uint32_t(l), s[l]);
            const json& rows = r.field(layers[l], path, "weights");
            if (!rows.is_array() || rows.size() != s[l].out)
                r.fail(path + ".weights", "must hold " + std::to_string(s[l].out) + " rows");
            for (uint32_t o = 0; o < s[l].out; ++o) {
                std::vector<float> row = r.floats(rows[o], path + ".weights[" + std::to_string(o) + "]", s[l].in);
                std::copy(row.begin(), row.end(), file.model.mlp.begin() + long(offset + size_t(o) * s[l].in_pad));
            }
            std::vector<float> bias = r.floats(r.field(layers[l], path, "bias"), path + ".bias", s[l].out);
            std::copy(bias.begin(), bias.end(),
                      file.model.mlp.begin() + long(offset + size_t(s[l].out_pad) * s[l].in_pad));
            offset += size_t(s[l].out_pad) * s[l].in_pad + s[l].out_pad;
        }
        file.model.encoding_params = r.floats(r.field(j, "(top level)", "grid"), "grid",
                                   size_t(c.grid_width) * c.grid_height * c.grid_channels);
    }
    // The model file's own checks (configuration, kinds, sizes) on the result.
    try {
        fe::decode_model_file(fe::encode_model_file(file), source);
    } catch (const fe::ModelFileError& e) {
        throw Error(source + ": " + e.what());
    }
    return file;
}

} // namespace ff::neural
