// Writes the bad (and odd but valid) input files of the reliability matrix into one folder:
//   ff_reliability_inputs OUT_DIR
// Images: a float image with NaN and infinite pixels, 8-bit gray, RGBA, 16-bit RGB and gray, 1x1, a PNG that declares 0x0 pixels (with valid
// checksums, so the size is what the reader meets), a truncated PNG and JPEG, a zero-byte file.
// PNG and JPEG headers declaring sizes over the default pixel limit.
// Model files: a small valid one, one of another format version and one whose configuration this
// engine cannot run (both with correct checksums, so the loader meets the header itself); JSON
// weights, valid, with a layer description that contradicts the model, and with overflowing weights.
// A large picture for the interrupt tests:
//   ff_reliability_inputs large FILE WIDTH HEIGHT BITS   (a noisy PNG, 8 or 16 bits)
// Also checks an output of an accepted case:
//   ff_reliability_inputs check FILE WIDTH HEIGHT   (exit 0 and "WxH, 8-bit RGB" if it is one)
#include <fieldflow/engine/engine.hpp>
#include <fieldflow/engine/model_file.hpp>

#include "weights_json_format.hpp"

#include <nlohmann/json.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <nlohmann/json.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fe = ff::engine;
using Bytes = std::vector<unsigned char>;

void write_file(const std::string& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

Bytes encode(const std::string& ext, const cv::Mat& image) {
    Bytes bytes;
    if (!cv::imencode(ext, image, bytes)) throw std::runtime_error("cannot encode " + ext);
    return bytes;
}

// A smooth gradient, so every format and depth has something non-constant to carry.
cv::Mat gradient(int width, int height, int type) {
    cv::Mat image(height, width, type);
    const int channels = image.channels();
    const double full = CV_MAT_DEPTH(type) == CV_16U ? 65535.0 : 255.0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < channels; ++c) {
                double v = full * (x + y + 7.0 * c) / (width + height + 7.0 * channels);
                if (CV_MAT_DEPTH(type) == CV_16U)
                    image.ptr<uint16_t>(y)[x * channels + c] = uint16_t(v);
                else
                    image.ptr<uint8_t>(y)[x * channels + c] = uint8_t(v);
            }
    return image;
}

uint32_t crc32(const unsigned char* data, size_t size) {
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put_be32(Bytes& bytes, size_t at, uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = (unsigned char)(value >> (24 - 8 * i));
}

// A valid PNG whose IHDR says `width` x `height` pixels, with the chunk's CRC fixed so only the
// size is wrong (0x0; or huge, which only decoding would find out is not there).
Bytes png_declaring(uint32_t width, uint32_t height) {
    Bytes png = encode(".png", gradient(1, 1, CV_8UC3));
    const size_t ihdr = 8; // after the signature: length(4) "IHDR"(4) width(4) height(4) ...
    put_be32(png, ihdr + 8, width);
    put_be32(png, ihdr + 12, height);
    put_be32(png, ihdr + 8 + 13, crc32(&png[ihdr + 4], 4 + 13));
    return png;
}

// A small JPEG whose frame header (SOF0) declares `width` x `height` pixels.
Bytes jpeg_declaring(uint16_t width, uint16_t height) {
    Bytes jpg = encode(".jpg", gradient(64, 48, CV_8UC3));
    for (size_t i = 2; i + 9 < jpg.size(); ++i)
        if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) { // marker, length(2), precision(1), height, width
            jpg[i + 5] = (unsigned char)(height >> 8), jpg[i + 6] = (unsigned char)height;
            jpg[i + 7] = (unsigned char)(width >> 8), jpg[i + 8] = (unsigned char)width;
            return jpg;
        }
    throw std::runtime_error("the encoded JPEG has no SOF0 frame header");
}

void write_json(const std::string& path, const nlohmann::json& json) {
    const std::string text = json.dump();
    write_file(path, Bytes(text.begin(), text.end()));
}

Bytes to_bytes(const std::vector<std::byte>& in) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); ++i) out[i] = (unsigned char)in[i];
    return out;
}

// Replaces one header line of a model file and seals it with a fresh checksum.
Bytes edit_model_header(Bytes file, const std::string& from, const std::string& to) {
    std::string text(file.begin(), file.end());
    size_t at = text.find("\n" + from + "\n");
    if (at == std::string::npos) throw std::runtime_error("model header has no line '" + from + "'");
    text.replace(at + 1, from.size(), to);
    Bytes out(text.begin(), text.end());
    uint64_t sum = XXH3_64bits(out.data(), out.size() - 8);
    for (int i = 0; i < 8; ++i) out[out.size() - 8 + i] = (unsigned char)(sum >> (8 * i));
    return out;
}

fe::ModelFile small_model() {
    fe::ModelConfig config;
    config.grid_width = 4;
    config.grid_height = 3;
    config.hidden_width = 16;
    config.hidden_layers = 1;
    fe::ModelFile file;
    file.model = fe::initial_model(config, 7);
    file.image_width = 16;
    file.image_height = 12;
    file.training.steps = 0;
    file.training.batch = 64;
    file.training.seed = 7;
    file.training.device = "none";
    file.training.kernel_path = "portable";
    return file;
}

} // namespace

// A model file written by an accepted run must decode, for an image of the expected size.
int check_model(const std::string& path, int width, int height) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        std::vector<std::byte> bytes(chars.size());
        std::memcpy(bytes.data(), chars.data(), chars.size());
        fe::ModelFile file = fe::decode_model_file(bytes, path);
        bool ok = int(file.image_width) == width && int(file.image_height) == height;
        std::printf("%s: model of a %ux%u image, grid %ux%u%s\n", path.c_str(), file.image_width,
                    file.image_height, file.model.config.grid_width, file.model.config.grid_height,
                    ok ? "" : " (wrong image size)");
        return ok ? 0 : 1;
    } catch (const fe::ModelFileError& e) {
        std::printf("%s\n", e.what());
        return 1;
    }
}

std::string layout_text(int bits, int channels) {
    return (bits == 32 ? std::string("32-bit float") : std::to_string(bits) + "-bit") + ", " +
           std::to_string(channels) + (channels == 1 ? " channel" : " channels");
}

// An accepted input must come out as an image of its own size with the expected depth and
// channels (by default 8-bit RGB).
int check_output(const std::string& path, int width, int height, int bits, int channels) {
    if (path.size() > 4 && path.substr(path.size() - 4) == ".ffm") return check_model(path, width, height);
    cv::Mat image = cv::imread(path, cv::IMREAD_UNCHANGED);
    if (image.empty()) {
        std::printf("%s: missing or unreadable\n", path.c_str());
        return 1;
    }
    const int depth = image.depth() == CV_8U ? 8 : image.depth() == CV_16U ? 16 : 32;
    bool ok = image.cols == width && image.rows == height && depth == bits && image.channels() == channels;
    std::printf("%s: %dx%d, %s%s\n", path.c_str(), image.cols, image.rows,
                layout_text(depth, image.channels()).c_str(),
                ok ? "" : (" (expected " + std::to_string(width) + "x" + std::to_string(height) +
                           ", " + layout_text(bits, channels) + ")").c_str());
    return ok ? 0 : 1;
}

// Metrics JSON must parse, and a PSNR is a finite number or null with identical: true.
int check_metrics(const std::string& path) {
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("psnr")) {
        std::printf("%s: not valid metrics JSON\n", path.c_str());
        return 1;
    }
    const bool identical = j.value("identical", false);
    const bool ok = identical ? j["psnr"].is_null() : j["psnr"].is_number();
    char psnr[64] = "null";
    if (j["psnr"].is_number()) std::snprintf(psnr, sizeof psnr, "%.2f dB", j["psnr"].get<double>());
    std::printf("%s: valid JSON, psnr %s, identical %s\n", path.c_str(), psnr, identical ? "true" : "false");
    return ok ? 0 : 1;
}

// A large picture for the interrupt tests (interrupt_each_node.sh): smooth colour, fine texture and
// noise, which no codec compresses quickly, so decoding and encoding it take a noticeable time.
int write_large(const std::string& path, int width, int height, int bits) {
    const int type = bits == 16 ? CV_16UC3 : CV_8UC3;
    cv::Mat image = gradient(width, height, type);
    cv::Mat noise(height, width, type);
    cv::randu(noise, 0, bits == 16 ? 8192 : 32);
    image += noise;
    for (int y = 0; y < height; y += 37) // a grid of lines: edges for the baseline to blur
        image.row(y).setTo(cv::Scalar::all(0));
    try {
        write_file(path, encode(".png", image));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 6 && std::string(argv[1]) == "large")
        return write_large(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]));
    if (argc == 3 && std::string(argv[1]) == "check") return check_metrics(argv[2]);
    if (argc == 5 && std::string(argv[1]) == "check")
        return check_output(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), 8, 3);
    if (argc == 7 && std::string(argv[1]) == "check")
        return check_output(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atoi(argv[5]),
                            std::atoi(argv[6]));
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR | check FILE WIDTH HEIGHT | large FILE WIDTH HEIGHT BITS\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    try {
        write_file(dir + "/gray8.png", encode(".png", gradient(40, 30, CV_8UC1)));
        write_file(dir + "/rgba8.png", encode(".png", gradient(40, 30, CV_8UC4)));
        write_file(dir + "/rgb16.png", encode(".png", gradient(40, 30, CV_16UC3)));
        write_file(dir + "/gray16.png", encode(".png", gradient(40, 30, CV_16UC1)));
        write_file(dir + "/one_pixel.png", encode(".png", gradient(1, 1, CV_8UC3)));
        write_file(dir + "/one_by_n.png", encode(".png", gradient(1, 30, CV_8UC3)));
        write_file(dir + "/constant.png", encode(".png", cv::Mat(30, 40, CV_8UC3, cv::Scalar(40, 120, 200))));
        cv::Mat float_image;
        gradient(40, 30, CV_16UC3).convertTo(float_image, CV_32F, 1.0 / 65535.0);
        write_file(dir + "/rgb32.exr", encode(".exr", float_image));
        write_file(dir + "/zero_size.png", png_declaring(0, 0));
        // Sizes only a header read can refuse early: 4.2 and 2.6 gigapixels, over OpenCV's decoder
        // limit (2^30 pixels) and so over ReadImage's max_pixels on any machine.
        write_file(dir + "/huge_header.png", png_declaring(65000, 65000));
        write_file(dir + "/huge_header.jpg", jpeg_declaring(65000, 40000));
        write_file(dir + "/zero_bytes.png", {});
        Bytes png = encode(".png", gradient(64, 48, CV_8UC3));
        write_file(dir + "/truncated.png", Bytes(png.begin(), png.begin() + png.size() / 2));
        Bytes jpg = encode(".jpg", gradient(64, 48, CV_8UC3));
        write_file(dir + "/truncated.jpg", Bytes(jpg.begin(), jpg.begin() + jpg.size() / 2));
        Bytes garbage(2048);
        for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = (unsigned char)(i * 131 + 17);
        write_file(dir + "/not_an_image.png", garbage);

        // A float image (Portable Float Map) with one NaN and one infinite pixel.
        cv::Mat floats(30, 40, CV_32FC3, cv::Scalar(0.25f, 0.5f, 0.75f));
        floats.at<cv::Vec3f>(3, 4)[1] = std::numeric_limits<float>::quiet_NaN();
        floats.at<cv::Vec3f>(5, 6)[0] = std::numeric_limits<float>::infinity();
        write_file(dir + "/nan_pixels.pfm", encode(".pfm", floats));

        Bytes model = to_bytes(fe::encode_model_file(small_model()));
        write_file(dir + "/small.ffm", model);
        const std::string text(model.begin(), model.end()); // "FFMODEL\nversion 1.m\n..."
        write_file(dir + "/other_version.ffm",
                   edit_model_header(model, text.substr(8, text.find('\n', 8) - 8), "version 2.0"));
        write_file(dir + "/other_config.ffm",
                   edit_model_header(model, "hidden_width 16", "hidden_width 48"));

        // JSON weights: valid; a layer whose recorded input width or omega contradicts the
        // model; weights so large that rendering overflows.
        const nlohmann::json weights = ff::neural::weights_to_json(small_model());
        write_json(dir + "/small.json", weights);
        nlohmann::json edited = weights;
        edited["layers"][0]["in"] = 3;
        write_json(dir + "/layer_in.json", edited);
        edited = weights;
        edited["layers"][0]["omega"] = 10.0;
        write_json(dir + "/layer_omega.json", edited);
        // Weights of 1e38: a SIREN's sines of infinity render NaN; a grid model (grid values of 1)
        // drives its sigmoid output to exactly 0 or 1 everywhere.
        const auto huge = [](nlohmann::json j) {
            for (auto& layer : j["layers"])
                for (auto& row : layer["weights"])
                    for (auto& w : row) w = 1e38;
            for (auto& g : j["grid"]) g = 1.0;
            return j;
        };
        write_json(dir + "/huge_weights.json", huge(weights));
        fe::ModelFile siren = small_model();
        siren.kind = fe::ModelKind::siren;
        siren.model = fe::initial_model(fe::siren_config(16, 1), 7);
        write_json(dir + "/huge_weights_siren.json", huge(ff::neural::weights_to_json(siren)));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ff_reliability_inputs: %s\n", e.what());
        return 1;
    }
    return 0;
}
