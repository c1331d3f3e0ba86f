#include "cpu_reference.hpp"

#include "fieldflow/engine/testing.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine::reference {

namespace {

struct Params {
    const ModelConfig& c;
    const std::vector<double>& mlp;
    const std::vector<double>& encoding;
};

struct Layout {
    std::vector<int> in, in_pad, out, w_off, b_off;
};

Layout layout(const ModelConfig& c) {
    Layout L;
    int off = 0;
    for (uint32_t l = 0; l <= c.hidden_layers; ++l) {
        bool first = l == 0, last = l == c.hidden_layers;
        L.in.push_back(first ? c.input_width() : c.hidden_width);
        L.in_pad.push_back(first ? c.padded_input_width() : c.hidden_width);
        L.out.push_back(last ? c.output_dims : c.hidden_width);
        int out_pad = last ? c.padded_output_width() : c.hidden_width;
        L.w_off.push_back(off);
        off += out_pad * L.in_pad.back();
        L.b_off.push_back(off);
        off += out_pad;
    }
    return L;
}

// Frequency factor of matrix l (SIREN): first, hidden, never the output matrix.
double omega(const ModelConfig& c, size_t l) {
    if (l == 0) return c.first_omega;
    return l < c.hidden_layers ? c.hidden_omega : 1.0;
}

// The encoding comes from its descriptor's reference (kernels/src/encodings/).
std::vector<double> encode(const Params& p, double u, double v) {
    return testing::reference_encode(p.c, p.encoding, u, v);
}

double act(Activation a, double z) {
    switch (a) {
    case Activation::relu: return z > 0 ? z : 0;
    case Activation::sigmoid: return 1 / (1 + std::exp(-z));
    case Activation::sine: return std::sin(z);
    default: return z;
    }
}

double dact(Activation a, double z, double y) {
    switch (a) {
    case Activation::relu: return z > 0 ? 1 : 0;
    case Activation::sigmoid: return y * (1 - y);
    case Activation::sine: return std::cos(z);
    default: return 1;
    }
}

struct Trace {
    std::vector<std::vector<double>> in; // input of each matrix
    std::vector<std::vector<double>> d;  // activation derivative at each matrix output
    std::vector<double> y;
};

Trace run(const Params& p, const Layout& L, double u, double v) {
    const ModelConfig& c = p.c;
    Trace tr;
    std::vector<double> x = encode(p, u, v);
    for (size_t l = 0; l < L.in.size(); ++l) {
        bool last = l + 1 == L.in.size();
        Activation a = last ? c.output_activation : c.hidden_activation;
        tr.in.push_back(x);
        std::vector<double> y(L.out[l]), d(L.out[l]);
        for (int o = 0; o < L.out[l]; ++o) {
            double z = p.mlp[L.b_off[l] + o];
            for (int i = 0; i < L.in[l]; ++i) z += p.mlp[L.w_off[l] + o * L.in_pad[l] + i] * x[i];
            z *= omega(c, l);
            y[o] = act(a, z);
            d[o] = omega(c, l) * dact(a, z, y[o]);
        }
        tr.d.push_back(d);
        x = y;
    }
    tr.y = x;
    return tr;
}

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

} // namespace

std::vector<double> forward(const Model& model, double u, double v) {
    std::vector<double> mlp = to_double(model.mlp), grid = to_double(model.encoding_params);
    Params p{model.config, mlp, grid};
    return run(p, layout(model.config), u, v).y;
}

double loss(const ModelConfig& config, const std::vector<double>& mlp,
            const std::vector<double>& grid, const std::vector<double>& uv,
            const std::vector<double>& targets) {
    Params p{config, mlp, grid};
    Layout L = layout(config);
    size_t n = uv.size() / 2;
    double sum = 0;
    for (size_t s = 0; s < n; ++s) {
        Trace tr = run(p, L, uv[2 * s], uv[2 * s + 1]);
        for (uint32_t o = 0; o < config.output_dims; ++o) {
            double diff = tr.y[o] - targets[s * config.output_dims + o];
            sum += diff * diff;
        }
    }
    return sum / double(n * config.output_dims);
}

Gradients forward_backward(const Model& model, const std::vector<double>& uv,
                           const std::vector<double>& targets) {
    const ModelConfig& c = model.config;
    std::vector<double> mlp = to_double(model.mlp), grid = to_double(model.encoding_params);
    Params p{c, mlp, grid};
    Layout L = layout(c);
    size_t n = uv.size() / 2;
    Gradients g;
    g.grad_mlp.assign(mlp.size(), 0.0);
    g.grad_encoding.assign(grid.size(), 0.0);
    double scale = 2.0 / double(n * c.output_dims);
    double sum = 0;
    for (size_t s = 0; s < n; ++s) {
        double u = uv[2 * s], v = uv[2 * s + 1];
        Trace tr = run(p, L, u, v);
        std::vector<double> delta(c.output_dims);
        for (uint32_t o = 0; o < c.output_dims; ++o) {
            double diff = tr.y[o] - targets[s * c.output_dims + o];
            sum += diff * diff;
            g.outputs.push_back(tr.y[o]);
            delta[o] = scale * diff * tr.d.back()[o];
        }
        std::vector<double> dx;
        for (int l = int(L.in.size()) - 1; l >= 0; --l) {
            dx.assign(L.in[l], 0.0);
            for (int o = 0; o < L.out[l]; ++o) {
                g.grad_mlp[L.b_off[l] + o] += delta[o];
                for (int i = 0; i < L.in[l]; ++i) {
                    g.grad_mlp[L.w_off[l] + o * L.in_pad[l] + i] += delta[o] * tr.in[l][i];
                    dx[i] += mlp[L.w_off[l] + o * L.in_pad[l] + i] * delta[o];
                }
            }
            if (l > 0) {
                delta.assign(L.out[l - 1], 0.0);
                for (int i = 0; i < L.out[l - 1]; ++i) delta[i] = dx[i] * tr.d[l - 1][i];
            }
        }
        testing::reference_encode_backward(c, u, v, dx, g.grad_encoding);
    }
    g.loss = sum / double(n * c.output_dims);
    return g;
}

} // namespace ff::engine::reference
