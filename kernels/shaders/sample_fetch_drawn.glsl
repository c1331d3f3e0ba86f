// train_step.comp's samples drawn from the image (sampling.glsl, target_image.glsl): a sample's
// fetch holds its uv and its target's words as stored.
struct SampleFetch {
    vec2 uv;
    uvec2 target;
};

// The sample drawn at `pixel`.
SampleFetch pixel_fetch(uint pixel) {
    SampleFetch f;
    f.uv = pixel_uv(pixel);
    f.target = target_words(pixel);
    return f;
}

SampleFetch sample_fetch(uint s) {
    return pixel_fetch(training_pixel(pc.step, s));
}

// The fetched sample's target, zero past OUT_DIM.
void sample_finish(SampleFetch f, out float target[OUT_PAD]) {
    for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.0;
    const vec3 rgb = target_from_words(f.target);
    target[0] = rgb.r; target[1] = rgb.g; target[2] = rgb.b;
}

// Sample s's uv alone (no image read): the samples are drawn by counter, so any invocation can
// draw any of them again.
vec2 drawn_uv(uint s) {
    return pixel_uv(training_pixel(pc.step, s));
}
