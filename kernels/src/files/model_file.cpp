// Model file encoder/decoder. Layout (docs/model-format.md):
//   "FFMODEL\n" | text header: "key value\n" lines, first "version M.m", last "end" |
//   grid floats | mlp floats (fp32 little-endian) | XXH3-64 of everything before it (u64 LE).
// The decoder treats the input as hostile (it is fuzzed): every size comes from the file only after
// it has been checked against the bytes actually present.
#include <fieldflow/engine/model_file.hpp>

#include "half_float.hpp"
#include "little_endian.hpp"
#include "encodings/encoding.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace ff::engine {
namespace {

using namespace detail;

constexpr std::string_view kMagic = "FFMODEL\n";
constexpr size_t kChecksumBytes = 8;
// The header is a few hundred bytes; anything past this is not a header we wrote.
constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kMaxTextValue = 1024;
// Structural bounds checked before the engine's own validation, so no arithmetic on file values
// can overflow: a 65536^2 x 64-channel grid is already 2^38 floats.
constexpr uint32_t kMaxGridSide = 65536;
constexpr uint32_t kMaxGridChannels = 64;
constexpr uint32_t kMaxHiddenWidth = 1024;
constexpr uint32_t kMaxHiddenLayers = 64;
constexpr uint32_t kMaxOutputDims = 64;
constexpr uint32_t kMaxFourierOctaves = 64;

[[noreturn]] void fail(std::string_view source, const std::string& what) {
    throw ModelFileError(std::string(source) + ": " + what);
}

// ---- number text ----

template <class T>
std::string number_text(T value) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::optional<uint64_t> parse_unsigned(std::string_view text) {
    uint64_t value = 0;
    if (text.empty() || text.size() > 20) return std::nullopt;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<double> parse_double(std::string_view text) {
    double value = 0;
    if (text.empty() || text.size() > 64) return std::nullopt;
    auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

std::optional<Activation> parse_activation(std::string_view text) {
    for (Activation a : {Activation::none, Activation::relu, Activation::sigmoid, Activation::sine})
        if (activation_name(a) == text) return a;
    return std::nullopt;
}

// Checked a * b for sizes read from a file.
std::optional<uint64_t> mul(uint64_t a, uint64_t b) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return std::nullopt;
    return a * b;
}

// Bounds every later computation relies on; empty if fine.
std::string structural_problem(const ModelConfig& c) {
    auto in_range = [](uint32_t v, uint32_t lo, uint32_t hi) { return v >= lo && v <= hi; };
    // The coords encoding has no grid (0x0); the engine's rules say which sizes each one takes.
    const uint32_t min_side = c.encoding.kind == EncodingKind::dense_grid ? 1 : 0;
    if (!in_range(c.grid_width, min_side, kMaxGridSide) || !in_range(c.grid_height, min_side, kMaxGridSide))
        return "grid size " + std::to_string(c.grid_width) + "x" + std::to_string(c.grid_height) +
               " outside " + std::to_string(min_side) + ".." + std::to_string(kMaxGridSide);
    if (!in_range(c.grid_channels, 1, kMaxGridChannels))
        return "grid_channels " + std::to_string(c.grid_channels) + " outside 1.." +
               std::to_string(kMaxGridChannels);
    if (!in_range(c.hidden_width, 1, kMaxHiddenWidth))
        return "hidden_width " + std::to_string(c.hidden_width) + " outside 1.." +
               std::to_string(kMaxHiddenWidth);
    if (!in_range(c.hidden_layers, 1, kMaxHiddenLayers))
        return "hidden_layers " + std::to_string(c.hidden_layers) + " outside 1.." +
               std::to_string(kMaxHiddenLayers);
    if (!in_range(c.output_dims, 1, kMaxOutputDims))
        return "output_dims " + std::to_string(c.output_dims) + " outside 1.." +
               std::to_string(kMaxOutputDims);
    if (c.encoding.fourier_octaves > kMaxFourierOctaves)
        return "fourier_octaves " + std::to_string(c.encoding.fourier_octaves) + " above " +
               std::to_string(kMaxFourierOctaves);
    return {};
}

// Structural bounds first (they keep the engine's arithmetic in range), then the engine's rules.
std::string config_problem(const ModelConfig& c) {
    std::string problem = structural_problem(c);
    if (problem.empty()) problem = c.validate();
    return problem;
}

bool text_value_ok(std::string_view value) {
    if (value.size() > kMaxTextValue) return false;
    return std::none_of(value.begin(), value.end(), [](char ch) {
        return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f;
    });
}

// ---- header ----

struct Field {
    std::string value;
    size_t line = 0; // 1-based line in the file (line 1 is the magic)
};

struct Header {
    uint32_t major = 0;
    uint32_t minor = 0;
    std::map<std::string, Field, std::less<>> fields;
    size_t size = 0; // bytes from the start of the file to the first payload byte
};

bool key_char(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

// Splits the text header into fields. Syntax only: which keys are required is checked later,
// once the checksum has shown the bytes are the ones that were written.
Header read_header(std::span<const std::byte> bytes, std::string_view source) {
    const char* text = reinterpret_cast<const char*>(bytes.data());
    const size_t limit = std::min(bytes.size(), kMaxHeaderBytes);
    Header header;
    size_t pos = kMagic.size();
    size_t line_number = 1;
    bool have_version = false;
    for (;;) {
        ++line_number;
        const char* begin = text + pos;
        const char* newline =
            static_cast<const char*>(std::memchr(begin, '\n', limit > pos ? limit - pos : 0));
        if (newline == nullptr) {
            if (bytes.size() < kMaxHeaderBytes)
                fail(source, "truncated (header ends at byte " + std::to_string(bytes.size()) +
                                 " before its 'end' line)");
            fail(source, "malformed header (no 'end' line in the first " +
                             std::to_string(kMaxHeaderBytes) + " bytes)");
        }
        std::string_view line(begin, size_t(newline - begin));
        pos += line.size() + 1;
        if (line == "end") break;

        size_t space = line.find(' ');
        std::string_view key = line.substr(0, space);
        std::string_view value = space == std::string_view::npos ? std::string_view{}
                                                                   : line.substr(space + 1);
        std::string where = "header line " + std::to_string(line_number);
        if (key.empty() || !std::all_of(key.begin(), key.end(), key_char))
            fail(source, "malformed header (" + where + " does not start with a lowercase key)");
        if (!text_value_ok(value))
            fail(source, "malformed header (" + where + ", key '" + std::string(key) +
                             "': value has control characters or is too long)");

        if (!have_version) {
            // The version comes first so that a future layout is recognised before anything else.
            if (key != "version")
                fail(source, "malformed header (first key is '" + std::string(key) +
                                 "', expected 'version')");
            size_t dot = value.find('.');
            auto major = parse_unsigned(value.substr(0, dot));
            auto minor = dot == std::string_view::npos ? std::optional<uint64_t>{}
                                                       : parse_unsigned(value.substr(dot + 1));
            if (!major || !minor || *major > 1000000 || *minor > 1000000)
                fail(source, "malformed header (version '" + std::string(value) +
                                 "' is not MAJOR.MINOR)");
            header.major = uint32_t(*major);
            header.minor = uint32_t(*minor);
            if (header.major != kModelFormatMajor)
                fail(source, "unsupported version " + std::to_string(header.major) + "." +
                                 std::to_string(header.minor) + " (this build reads " +
                                 std::to_string(kModelFormatMajor) + ")");
            have_version = true;
            continue;
        }
        auto [it, inserted] = header.fields.emplace(std::string(key), Field{std::string(value), line_number});
        if (!inserted)
            fail(source, "malformed header (" + where + ": key '" + std::string(key) +
                             "' repeats line " + std::to_string(it->second.line) + ")");
    }
    if (!have_version) fail(source, "malformed header (no 'version' line)");
    header.size = pos;
    return header;
}

// Typed, strict access to header fields; remembers which keys were consumed so unknown ones can be
// reported.
class FieldReader {
public:
    FieldReader(const Header& header, std::string_view source) : header_(header), source_(source) {}

    bool has(std::string_view key) const { return header_.fields.count(key) != 0; }
    const std::string& text(std::string_view key) {
        auto it = header_.fields.find(key);
        if (it == header_.fields.end())
            fail(source_, "malformed header (missing required key '" + std::string(key) + "')");
        used_.insert(it->first);
        return it->second.value;
    }
    uint64_t unsigned_value(std::string_view key, uint64_t max) {
        const std::string& value = text(key);
        auto parsed = parse_unsigned(value);
        if (!parsed || *parsed > max)
            bad(key, value, "an integer in 0.." + std::to_string(max));
        return *parsed;
    }
    uint32_t u32(std::string_view key) {
        return uint32_t(unsigned_value(key, std::numeric_limits<uint32_t>::max()));
    }
    double real(std::string_view key) {
        const std::string& value = text(key);
        auto parsed = parse_double(value);
        if (!parsed) bad(key, value, "a number");
        return *parsed;
    }
    float positive_float(std::string_view key) {
        double value = real(key);
        if (!(value > 0 && value <= 1e6)) bad(key, text(key), "a number in (0, 1e6]");
        return float(value);
    }
    bool boolean(std::string_view key) {
        const std::string& value = text(key);
        if (value != "0" && value != "1") bad(key, value, "0 or 1");
        return value == "1";
    }
    Activation activation(std::string_view key) {
        const std::string& value = text(key);
        auto parsed = parse_activation(value);
        if (!parsed) bad(key, value, "one of none, relu, sigmoid, sine");
        return *parsed;
    }
    // Keys this version does not define. Tolerated in a newer minor version (it may add keys),
    // an error otherwise (a typo or a damaged file).
    void check_no_unknown_keys(uint32_t minor) const {
        if (minor > kModelFormatMinor) return;
        for (const auto& [key, field] : header_.fields)
            if (!used_.count(key))
                fail(source_, "malformed header (unknown key '" + key + "' on line " +
                                  std::to_string(field.line) + ")");
    }

private:
    [[noreturn]] void bad(std::string_view key, const std::string& value, const std::string& want) {
        fail(source_, "malformed header (key '" + std::string(key) + "' is '" + value +
                          "', expected " + want + ")");
    }
    const Header& header_;
    std::string_view source_;
    std::set<std::string, std::less<>> used_;
};

void append_line(std::string& header, std::string_view key, std::string_view value) {
    header.append(key).append(" ").append(value).append("\n");
}

// An encoding's own keys, written as header lines and read through the strict FieldReader.
class HeaderLines : public HeaderWriter {
public:
    explicit HeaderLines(std::string& header) : header_(header) {}
    void u32(std::string_view key, uint32_t value) override { append_line(header_, key, std::to_string(value)); }
    void real(std::string_view key, float value) override { append_line(header_, key, number_text(value)); }
    void boolean(std::string_view key, bool value) override { append_line(header_, key, value ? "1" : "0"); }

private:
    std::string& header_;
};

class FieldSource : public HeaderReader {
public:
    explicit FieldSource(FieldReader& fields) : fields_(fields) {}
    uint32_t u32(std::string_view key) override { return fields_.u32(key); }
    float positive_real(std::string_view key) override { return fields_.positive_float(key); }
    bool boolean(std::string_view key) override { return fields_.boolean(key); }

private:
    FieldReader& fields_;
};

void check_text_field(std::string_view name, const std::string& value) {
    if (!text_value_ok(value))
        throw ModelFileError("cannot encode model file: " + std::string(name) +
                             " has control characters or is longer than " +
                             std::to_string(kMaxTextValue) + " bytes");
}

// Index of the first non-finite value, if any.
std::optional<size_t> first_non_finite(const std::vector<float>& values) {
    for (size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i])) return i;
    return std::nullopt;
}

// The kind a configuration implies: the coords encoding is a SIREN; any other encoding (a dense or
// hashed feature grid, frequencies) with its MLP is a grid model.
ModelKind kind_of(const ModelConfig& c) {
    return c.encoding.kind == EncodingKind::coords ? ModelKind::siren : ModelKind::grid;
}

void append_training(std::string& header, const ModelFile& file);

} // namespace

std::string_view weight_precision_name(WeightPrecision precision) {
    return precision == WeightPrecision::fp16 ? "fp16" : "fp32";
}

std::string_view model_kind_name(ModelKind kind) {
    switch (kind) {
    case ModelKind::grid: return "grid";
    case ModelKind::siren: return "siren";
    case ModelKind::splats: return "splats";
    }
    return "unknown";
}

std::string_view activation_name(Activation activation) {
    switch (activation) {
    case Activation::none: return "none";
    case Activation::relu: return "relu";
    case Activation::sigmoid: return "sigmoid";
    case Activation::sine: return "sine";
    }
    return "unknown";
}

uint64_t encoding_float_count(const ModelConfig& c) { return c.encoding_parameter_count(); }

uint64_t mlp_float_count(const ModelConfig& c) {
    // hidden_layers + 1 matrices, each weights [out][in_padded] + biases [out], padded sizes.
    uint64_t count = 0;
    uint64_t in = c.padded_input_width();
    for (uint32_t layer = 0; layer <= c.hidden_layers; ++layer) {
        uint64_t out = layer == c.hidden_layers ? c.padded_output_width() : c.hidden_width;
        count += out * in + out;
        in = out;
    }
    return count;
}

namespace {

void append_training(std::string& header, const ModelFile& file) {
    const TrainingInfo& t = file.training;
    append_line(header, "image_width", std::to_string(file.image_width));
    append_line(header, "image_height", std::to_string(file.image_height));
    append_line(header, "train_steps", std::to_string(t.steps));
    append_line(header, "train_batch", std::to_string(t.batch));
    append_line(header, "train_seed", std::to_string(t.seed));
    append_line(header, "train_lr_mlp", number_text(t.lr_mlp));
    append_line(header, "train_lr_grid", number_text(t.lr_grid));
    append_line(header, "train_device", t.device);
    append_line(header, "train_kernel_path", t.kernel_path);
    append_line(header, "train_final_loss", number_text(t.final_loss));
    append_line(header, "train_final_psnr", number_text(t.final_psnr));
    append_line(header, "train_seconds", number_text(t.train_seconds));
}

std::vector<std::byte> finish(const std::string& header, std::initializer_list<const std::vector<float>*> parts,
                              WeightPrecision precision = WeightPrecision::fp32) {
    size_t floats = 0;
    for (const std::vector<float>* part : parts) floats += part->size();
    const bool half = precision == WeightPrecision::fp16;
    std::vector<std::byte> out;
    out.reserve(header.size() + (half ? 2 : 4) * floats + kChecksumBytes);
    for (char ch : header) out.push_back(std::byte(static_cast<unsigned char>(ch)));
    for (const std::vector<float>* part : parts)
        for (float v : *part) {
            if (!half) {
                put_u32(out, std::bit_cast<uint32_t>(v));
                continue;
            }
            const uint16_t h = detail::to_half(v);
            out.push_back(std::byte(h & 0xffu));
            out.push_back(std::byte(h >> 8));
        }
    put_u64(out, checksum(out));
    return out;
}

// A file says the oldest version that holds it: 1.3 only for fp16 weights, 1.4 only for the
// frequency encoding (its descriptor's format_minor), so every other fp32 file stays readable by
// 1.2 readers.
std::string version_text(WeightPrecision precision = WeightPrecision::fp32, uint32_t encoding_minor = 0) {
    const uint32_t minor = std::max(precision == WeightPrecision::fp16 ? 3u : 2u, encoding_minor);
    return std::to_string(kModelFormatMajor) + "." + std::to_string(minor);
}

void check_common(const ModelFile& file) {
    if (file.image_width == 0 || file.image_height == 0)
        throw ModelFileError("cannot encode model file: training image size is zero");
    check_text_field("training device name", file.training.device);
    check_text_field("kernel path", file.training.kernel_path);
}

std::vector<std::byte> encode_splat_file(const ModelFile& file) {
    const SplatModel& m = file.splats;
    if (m.config.count == 0)
        throw ModelFileError("cannot encode model file: a splat model needs at least one splat");
    if (m.params.size() != m.parameter_count())
        throw ModelFileError("cannot encode model file: payload size mismatch (" +
                             std::to_string(m.params.size()) + " splat floats, " +
                             std::to_string(m.config.count) + " splats need " +
                             std::to_string(m.parameter_count()) + ")");
    if (auto i = first_non_finite(m.params))
        throw ModelFileError("cannot encode model file: splat value " + std::to_string(*i) +
                             " is not finite");
    if (file.precision != WeightPrecision::fp32)
        throw ModelFileError("cannot encode model file: a splat model is stored as fp32 (its positions "
                             "are pixels, past fp16's precision in a large image)");
    check_common(file);
    std::string header(kMagic);
    append_line(header, "version", version_text());
    append_line(header, "model", "splats");
    append_line(header, "splat_count", std::to_string(m.config.count));
    append_training(header, file);
    append_line(header, "grid_floats", "0");
    append_line(header, "mlp_floats", "0");
    append_line(header, "splat_floats", std::to_string(m.params.size()));
    header.append("end\n");
    return finish(header, {&m.params});
}

} // namespace

std::vector<std::byte> encode_model_file(const ModelFile& file) {
    if (file.kind == ModelKind::splats) return encode_splat_file(file);
    const ModelConfig& c = file.model.config;
    if (file.kind != ModelKind::grid && file.kind != ModelKind::siren)
        throw ModelFileError("cannot encode model file: unknown model kind");
    if (std::string problem = config_problem(c); !problem.empty())
        throw ModelFileError("cannot encode model file: invalid configuration (" + problem + ")");
    if (file.model.encoding_params.size() != encoding_float_count(c) || file.model.mlp.size() != mlp_float_count(c))
        throw ModelFileError("cannot encode model file: payload size mismatch (encoding has " +
                             std::to_string(file.model.encoding_params.size()) + " floats, configuration needs " +
                             std::to_string(encoding_float_count(c)) + "; mlp has " +
                             std::to_string(file.model.mlp.size()) + ", needs " +
                             std::to_string(mlp_float_count(c)) + ")");
    if (auto i = first_non_finite(file.model.encoding_params))
        throw ModelFileError("cannot encode model file: encoding value " + std::to_string(*i) +
                             " is not finite");
    if (auto i = first_non_finite(file.model.mlp))
        throw ModelFileError("cannot encode model file: mlp value " + std::to_string(*i) +
                             " is not finite");
    if (kind_of(c) != file.kind)
        throw ModelFileError("cannot encode model file: a " + std::string(model_kind_name(file.kind)) +
                             " model needs " +
                             (file.kind == ModelKind::siren ? "the coords encoding" : "an encoding other than coords"));
    check_common(file);
    const bool half = file.precision == WeightPrecision::fp16;
    if (half)
        for (const std::vector<float>* part : {&file.model.encoding_params, &file.model.mlp})
            for (size_t i = 0; i < part->size(); ++i)
                if (std::abs((*part)[i]) >= 65520.0f) // rounds to infinity as fp16
                    throw ModelFileError("cannot encode model file: " +
                                         std::string(part == &file.model.mlp ? "mlp" : "encoding") + " value " +
                                         std::to_string(i) + " (" + number_text((*part)[i]) +
                                         ") is past fp16's range; store it as fp32");

    std::string header(kMagic);
    const EncodingDescriptor& encoding = encoding_of(c);
    append_line(header, "version", version_text(file.precision, encoding.format_minor));
    append_line(header, "model", model_kind_name(file.kind));
    append_line(header, "encoding", encoding.name);
    HeaderLines lines(header);
    encoding.write_header(c, lines);
    append_line(header, "hidden_width", std::to_string(c.hidden_width));
    append_line(header, "hidden_layers", std::to_string(c.hidden_layers));
    append_line(header, "hidden_activation", activation_name(c.hidden_activation));
    append_line(header, "output_activation", activation_name(c.output_activation));
    append_line(header, "output_dims", std::to_string(c.output_dims));
    append_line(header, "first_omega", number_text(c.first_omega));
    append_line(header, "hidden_omega", number_text(c.hidden_omega));
    append_training(header, file);
    append_line(header, "grid_floats", std::to_string(file.model.encoding_params.size()));
    append_line(header, "mlp_floats", std::to_string(file.model.mlp.size()));
    if (half) append_line(header, "weights", "fp16");
    header.append("end\n");
    return finish(header, {&file.model.encoding_params, &file.model.mlp}, file.precision);
}

ModelFile decode_model_file(std::span<const std::byte> bytes, std::string_view source) {
    if (bytes.size() < kMagic.size() ||
        std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
        fail(source, "not a model file (does not start with \"FFMODEL\")");

    const Header header = read_header(bytes, source);

    // Sizes first, from the two count fields alone: a truncated file must say "truncated", and
    // nothing is allocated or read until the byte count is known to add up.
    auto declared = [&](const char* key) -> uint64_t {
        auto it = header.fields.find(key);
        std::optional<uint64_t> value;
        if (it != header.fields.end()) value = parse_unsigned(it->second.value);
        if (!value) fail(source, std::string("malformed header (missing or bad '") + key + "')");
        return *value;
    };
    const uint64_t grid_floats = declared("grid_floats");
    const uint64_t mlp_floats = declared("mlp_floats");
    // Version 1.1: splat models carry their parameters after the (empty) grid and MLP.
    const uint64_t splat_floats = header.fields.count("splat_floats") ? declared("splat_floats") : 0;
    // Version 1.3: `weights fp16` stores each value in 2 bytes.
    WeightPrecision precision = WeightPrecision::fp32;
    if (auto it = header.fields.find("weights"); it != header.fields.end()) {
        if (it->second.value == "fp16") precision = WeightPrecision::fp16;
        else if (it->second.value != "fp32")
            fail(source, "malformed header (key 'weights' is '" + it->second.value + "', expected fp32 or fp16)");
    }
    const uint64_t value_bytes = precision == WeightPrecision::fp16 ? 2 : 4;
    const uint64_t limit = std::numeric_limits<uint64_t>::max() / 8;
    const auto payload_floats =
        grid_floats <= limit && mlp_floats <= limit && splat_floats <= limit
            ? mul(grid_floats + mlp_floats + splat_floats, value_bytes)
            : std::nullopt;
    if (!payload_floats || *payload_floats > std::numeric_limits<uint64_t>::max() - header.size -
                                                 kChecksumBytes)
        fail(source, "payload size mismatch (declared float counts overflow)");
    const uint64_t expected = header.size + *payload_floats + kChecksumBytes;

    const bool intact =
        bytes.size() >= header.size + kChecksumBytes &&
        checksum(bytes.first(bytes.size() - kChecksumBytes)) ==
            get_u64(bytes.data() + bytes.size() - kChecksumBytes);
    if (!intact && bytes.size() < expected)
        fail(source, "truncated (expected " + std::to_string(expected) + " bytes, got " +
                         std::to_string(bytes.size()) + ")");
    if (!intact) fail(source, "checksum mismatch (corrupt)");
    if (bytes.size() != expected)
        fail(source, "payload size mismatch (header declares " + std::to_string(expected) +
                         " bytes in all, the file has " + std::to_string(bytes.size()) + ")");

    // The bytes are the ones that were written: now read the header strictly.
    FieldReader fields(header, source);
    ModelFile file;
    file.precision = precision;
    if (fields.has("weights")) fields.text("weights");
    // `model` arrived in 1.1; a 1.0 file is a grid model.
    if (fields.has("model") || header.minor >= 1) {
        const std::string& kind = fields.text("model");
        if (kind == "grid") file.kind = ModelKind::grid;
        else if (kind == "siren") file.kind = ModelKind::siren;
        else if (kind == "splats") file.kind = ModelKind::splats;
        else fail(source, "malformed header (key 'model' is '" + kind + "', expected grid, siren or splats)");
    }
    auto read_training = [&] {
        file.image_width = fields.u32("image_width");
        file.image_height = fields.u32("image_height");
        TrainingInfo& t = file.training;
        t.steps = fields.u32("train_steps");
        t.batch = fields.u32("train_batch");
        t.seed = fields.unsigned_value("train_seed", std::numeric_limits<uint64_t>::max());
        t.lr_mlp = float(fields.real("train_lr_mlp"));
        t.lr_grid = float(fields.real("train_lr_grid"));
        t.device = fields.text("train_device");
        t.kernel_path = fields.text("train_kernel_path");
        t.final_loss = fields.real("train_final_loss");
        t.final_psnr = fields.real("train_final_psnr");
        t.train_seconds = fields.real("train_seconds");
        fields.text("grid_floats");
        fields.text("mlp_floats");
        if (fields.has("splat_floats")) fields.text("splat_floats");
        if (file.image_width == 0 || file.image_height == 0)
            fail(source, "invalid configuration (training image size " +
                             std::to_string(file.image_width) + "x" +
                             std::to_string(file.image_height) + ")");
    };
    auto read_floats = [&](const std::byte*& p, std::vector<float>& values, uint64_t count,
                           const char* what) {
        values.resize(count);
        for (uint64_t i = 0; i < count; ++i, p += value_bytes) {
            values[i] = value_bytes == 2 ? detail::from_half(uint16_t(std::to_integer<uint16_t>(p[0]) | std::to_integer<uint16_t>(p[1]) << 8))
                                         : std::bit_cast<float>(get_u32(p));
            if (!std::isfinite(values[i]))
                fail(source, std::string("invalid weights (") + what + " value " +
                                 std::to_string(i) + " is not finite)");
        }
    };
    if (file.kind == ModelKind::splats) {
        SplatModel& m = file.splats;
        m.config.count = uint32_t(fields.unsigned_value("splat_count", 1u << 26));
        read_training();
        fields.check_no_unknown_keys(header.minor);
        m.width = file.image_width;
        m.height = file.image_height;
        if (m.config.count == 0) fail(source, "invalid configuration (splat_count is 0)");
        if (grid_floats != 0 || mlp_floats != 0 || splat_floats != m.parameter_count())
            fail(source, "payload size mismatch (header declares " + std::to_string(splat_floats) +
                             " splat floats; " + std::to_string(m.config.count) + " splats need " +
                             std::to_string(m.parameter_count()) + ", and no grid or mlp floats)");
        const std::byte* p = bytes.data() + header.size;
        read_floats(p, m.params, splat_floats, "splat");
        return file;
    }
    if (splat_floats != 0)
        fail(source, "payload size mismatch (a " + std::string(model_kind_name(file.kind)) +
                         " model has no splat floats)");
    ModelConfig& c = file.model.config;
    const std::string& encoding_name = fields.text("encoding");
    const EncodingDescriptor* encoding = find_encoding(encoding_name);
    if (!encoding)
        fail(source, "invalid configuration (encoding '" + encoding_name +
                         "' is not supported; this build reads " + encoding_names(" and ") + ")");
    c.encoding.kind = encoding->kind;
    if (kind_of(c) != file.kind)
        fail(source, "invalid configuration (a " + std::string(model_kind_name(file.kind)) +
                         " model with the " + encoding_name + " encoding)");
    FieldSource encoding_fields(fields);
    encoding->read_header(encoding_fields, header.minor, c);
    c.hidden_width = fields.u32("hidden_width");
    c.hidden_layers = fields.u32("hidden_layers");
    c.hidden_activation = fields.activation("hidden_activation");
    c.output_activation = fields.activation("output_activation");
    c.output_dims = fields.u32("output_dims");
    // Omegas arrived in 1.1 (SIREN); 1.0 files have none, i.e. 1.
    if (fields.has("first_omega") || header.minor >= 1) c.first_omega = fields.positive_float("first_omega");
    if (fields.has("hidden_omega") || header.minor >= 1) c.hidden_omega = fields.positive_float("hidden_omega");
    read_training();
    fields.check_no_unknown_keys(header.minor);

    if (std::string problem = config_problem(c); !problem.empty())
        fail(source, "invalid configuration (" + problem + ")");
    if (grid_floats != encoding_float_count(c) || mlp_floats != mlp_float_count(c))
        fail(source, "payload size mismatch (header declares " + std::to_string(grid_floats) +
                         " encoding and " + std::to_string(mlp_floats) +
                         " mlp floats; the configuration needs " +
                         std::to_string(encoding_float_count(c)) + " and " +
                         std::to_string(mlp_float_count(c)) + ")");

    const std::byte* p = bytes.data() + header.size;
    read_floats(p, file.model.encoding_params, grid_floats, "encoding");
    read_floats(p, file.model.mlp, mlp_floats, "mlp");
    return file;
}

} // namespace ff::engine
