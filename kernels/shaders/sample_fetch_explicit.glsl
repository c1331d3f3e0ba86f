// train_step.comp's samples given explicitly (EXPLICIT_SAMPLES: sample_uv and sample_target, the
// engine's tests): a sample's fetch holds its uv and its target itself.
struct SampleFetch {
    vec2 uv;
    float target[OUT_DIM];
};

SampleFetch sample_fetch(uint s) {
    SampleFetch f;
    f.uv = sample_uv[s];
    for (int o = 0; o < OUT_DIM; ++o) f.target[o] = sample_target[s * OUT_DIM + o];
    return f;
}

// The fetched sample's target, zero past OUT_DIM.
void sample_finish(SampleFetch f, out float target[OUT_PAD]) {
    for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.0;
    for (int o = 0; o < OUT_DIM; ++o) target[o] = f.target[o];
}

// Sample s's uv alone.
vec2 drawn_uv(uint s) {
    return sample_uv[s];
}
