// Shared by the engine tests: one validated device per test binary, random models and samples.
#pragma once

#include "fieldflow/engine/engine.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ff::engine::test {

// The largest absolute difference between two vectors of parameters (a size mismatch fails).
inline double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double d = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, double(std::abs(a[i] - b[i])));
    return d;
}

// The device every GPU test runs on (lavapipe here), with the validation layer on.
inline Device& device() {
    static Device d = Device::open("auto", DeviceOptions{.validation = true});
    return d;
}

// How close the GPU must come to the double-precision reference on the device's kernel path. The
// portable kernels compute in fp32. The tensor-core path multiplies fp16 weights and activations
// (11-bit mantissa, ~5e-4 relative per rounding) in 16-wide blocks and carries the backward deltas
// in fp16, so its errors are ~10x larger; a wrong index or a missing term is still O(1).
// The tensor-core figures are ~2x the worst seen over two runs of every GPU test on the H100
// (bench/archive/RESULTS.md, "persistent training workgroups, the hash grid, and scaling").
struct Tolerances {
    double forward, loss_rel, weights_max_rel, weights_norm_rel, encoding_max_rel, encoding_norm_rel;
    double same_seed; // two runs of one seed, largest parameter difference (float atomics' order)
    double resumed;   // a resumed run against the uninterrupted one
};
inline bool on_tensor_cores() { return device().kernel_path() == "coopmat"; }
inline Tolerances portable_tolerances() { return {1e-4, 1e-4, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3, 1e-3}; }
inline Tolerances tolerances() {
    if (on_tensor_cores()) return {3e-3, 1e-3, 0.1, 0.07, 0.3, 0.08, 1e-2, 5e-2};
    return portable_tolerances();
}

// The same device on the portable (fp32) kernels, for properties of the optimizer that do not
// depend on the MLP's kernel path and that fp16 rounding would blur (see test_encoding_adam.cpp).
inline Device& portable_device() {
    if (!on_tensor_cores()) return device();
    static Device d = Device::open("auto", DeviceOptions{.validation = true, .force_portable = true});
    return d;
}

// Fails the current test if the validation layer reported anything since `since` messages.
inline void expect_validation_clean(size_t since = 0, Device& on = device()) {
    std::vector<std::string> m = on.validation_messages();
    EXPECT_EQ(m.size(), since) << (m.size() > since ? m[since] : std::string());
}

// A small test image with smooth colour, a checkerboard (sharp edges) and a gradient.
inline ImageData synthetic_image(uint32_t w, uint32_t h) {
    ImageData img{w, h, std::vector<float>(size_t(w) * h * 3)};
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
            float* p = &img.rgb[(size_t(y) * w + x) * 3];
            p[0] = 0.5f + 0.4f * std::sin(9.0f * u) * std::cos(5.0f * v);
            p[1] = (x / 6 + y / 6) % 2 ? 0.8f : 0.2f;
            p[2] = u * v;
        }
    return img;
}

// A model with every parameter (biases and grid included) random, so no gradient is trivially 0.
inline Model random_model(const ModelConfig& config, uint32_t seed) {
    Model m = initial_model(config, seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> grid(-1.0f, 1.0f), bias(-0.2f, 0.2f);
    for (float& g : m.encoding_params) g = grid(rng);
    // Biases: the layout puts [out_pad] biases after each [out_pad][in_pad] matrix.
    uint32_t off = 0, in_pad = config.padded_input_width();
    for (uint32_t l = 0; l <= config.hidden_layers; ++l) {
        bool last = l == config.hidden_layers;
        uint32_t out = last ? config.output_dims : config.hidden_width;
        uint32_t out_pad = last ? config.padded_output_width() : config.hidden_width;
        off += out_pad * in_pad;
        for (uint32_t o = 0; o < out; ++o) m.mlp[off + o] = bias(rng);
        off += out_pad;
        in_pad = config.hidden_width;
    }
    return m;
}

struct Samples {
    std::vector<float> uv, targets;
};

// |a - b| / |b| (Euclidean norms) of two equally long vectors; infinity where the lengths differ
// or b is zero.
inline double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    double diff = 0, norm = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return norm > 0 ? std::sqrt(diff / norm) : INFINITY;
}

inline Samples random_samples(uint32_t n, uint32_t dims, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    Samples s;
    for (uint32_t i = 0; i < 2 * n; ++i) s.uv.push_back(u01(rng));
    for (uint32_t i = 0; i < n * dims; ++i) s.targets.push_back(u01(rng));
    return s;
}

inline ModelConfig default_config(uint32_t gw = 23, uint32_t gh = 17) {
    ModelConfig c;
    c.grid_width = gw;
    c.grid_height = gh;
    return c;
}

// A deliberately different specialisation: narrower, deeper, other encoding terms/activations.
inline ModelConfig alternate_config() {
    ModelConfig c;
    c.grid_width = 9;
    c.grid_height = 13;
    c.grid_channels = 4;
    c.encoding.subcell = false;
    c.encoding.fourier_octaves = 3;
    c.hidden_width = 16;
    c.hidden_layers = 3;
    c.hidden_activation = Activation::sine;
    c.output_activation = Activation::none;
    return c;
}

// A SIREN (coords encoding, sine layers with omega 30 on the first and hidden matrices) small
// enough for finite differences.
inline ModelConfig siren_test_config() { return siren_config(16, 2, 30.0f); }

// A hash grid small enough for finite differences that still has every kind of level: level 0 is
// indexed densely (17^2 vertices fit 2^10 rows), levels 1 and 2 hash 65^2 and 257^2 vertices into
// 2^10 rows each, so samples collide.
inline ModelConfig hash_test_config() {
    ModelConfig c;
    c.encoding.kind = EncodingKind::hash_grid;
    c.encoding.hash = {.levels = 3, .features = 2, .log2_table_size = 10, .base_resolution = 16,
                       .per_level_scale = 4.0f};
    c.hidden_width = 16;
    c.hidden_layers = 2;
    return c;
}

// The frequency encoding with 4 octaves: 18 inputs, padded to 32 (the padding inputs are checked
// too); its finest octave, sin(8 pi u), puts 4 periods across the image.
inline ModelConfig frequency_test_config() {
    ModelConfig c;
    c.encoding.kind = EncodingKind::frequency;
    c.encoding.frequency.octaves = 4;
    c.hidden_width = 16;
    c.hidden_layers = 2;
    return c;
}

// The hash model's shape that issue-sized runs use (16 levels x 2 features: 32 MLP inputs, MLP
// 64 x 2) on the small test table: for what depends on the shape only (tiling, kernel variants).
inline ModelConfig hash64_test_config() {
    ModelConfig c = hash_test_config();
    c.encoding.hash.levels = 16;
    c.hidden_width = 64;
    return c;
}

} // namespace ff::engine::test
