// Lazy dense Adam's catch-up of one parameter (encoding_adam.glsl): the zero-gradient steps a cell
// skipped, in closed form. Shared by the optimizer and the settle pass, which write the caught-up
// cells, and by the training step, which reads a cell as it would be caught up (ENC_LAZY_READ).
// The including kernel declares `enc_catch_up` (the host's table, kernels/src/adam_schedule.hpp)
// and uses common.glsl's push constants.
#ifndef FF_ENCODING_CATCH_UP_GLSL
#define FF_ENCODING_CATCH_UP_GLSL

// The encoding's learning rate at Adam step t (1-based): Trainer::lr_scale's schedule, in fp32.
float encoding_lr(uint t) {
    const float step = float(t - 1u);
    const float total = float(max(pc.steps_total, 1u));
    const float warmup = pc.lr_warmup * total;
    const float ramp = step + 1.0 < warmup ? (step + 1.0) / warmup : 1.0;
    const float start = pc.lr_decay_start * total;
    if (step <= start) return pc.lr_grid_base * ramp;
    const float x = min(1.0, (step - start) / max(1.0, total - start));
    return pc.lr_grid_base * ramp * exp2(x * pc.log2_lr_final_scale);
}

// Steps from + 1 .. to of one parameter, one by one: the exact form, for the rare parameter whose
// epsilon is not negligible next to sqrt(v) (below).
float catch_up_stepwise(float p, float m, float v, uint from, uint to) {
    const uint steps = min(to - from, pc.catch_up_limit);
    for (uint j = 1u; j <= steps; ++j) {
        const uint t = from + j;
        const float lr = encoding_lr(t);
        const float bc1 = 1.0 - exp2(float(t) * pc.log2_beta1), bc2 = 1.0 - exp2(float(t) * pc.log2_beta2);
        const float d1 = exp2(float(j) * pc.log2_beta1) / bc1, d2 = exp2(float(j) * pc.log2_beta2) / bc2;
        p -= lr * (m * d1) / (sqrt(v * d2) + pc.epsilon);
    }
    return p;
}

// R(f), S(f) of the host's table (kernels/src/adam_schedule.hpp), constant past its end.
vec2 catch_up_sums(uint f) { return enc_catch_up[min(f, pc.catch_up_last)]; }

// What the skipped steps from + 1 .. to share, whatever the parameter: with no gradient the
// moments decay in closed form (m beta1^j, v beta2^j after j steps), so the moves of all skipped
// steps add up to `a` m / sqrt(v), less epsilon's share to first order, `e` (adam_schedule.hpp
// derives both): two lookups whatever the gap.
struct CatchUpTerms {
    float a, e;
    float v_floor; // beta2^(j/2) at the last step that still moves a parameter
};
CatchUpTerms catch_up_terms(uint from, uint to) {
    const float k = float(to - from);
    const vec2 at_from = catch_up_sums(from), at_to = catch_up_sums(to);
    CatchUpTerms terms;
    terms.a = at_from.x - exp2(k * (pc.log2_beta1 - 0.5 * pc.log2_beta2)) * at_to.x;
    terms.e = at_from.y - exp2(k * (pc.log2_beta1 - pc.log2_beta2)) * at_to.y;
    terms.v_floor = exp2(float(min(to - from, pc.catch_up_limit)) * 0.5 * pc.log2_beta2);
    return terms;
}

// Parameter p with moments m, v at step `from`, brought to step `to` (from < to). The closed form
// holds where d = epsilon / (sqrt(v) beta2^(j/2)) stays below 1e-3 over the steps that still move
// the parameter (its error is of order d^2 < 1e-6 of the moves): with the default 1e-15, every
// parameter whose gradients reached ~1e-11. Elsewhere the steps are taken one by one, up to the
// catch-up limit past which no step moves a parameter.
float caught_up_parameter(float p, float m, float v, CatchUpTerms terms, uint from, uint to) {
    if (m == 0.0) return p;
    const float root = sqrt(v);
    if (v > 0.0 && pc.epsilon <= 1e-3 * root * terms.v_floor) return p - (m / root) * (terms.a - (pc.epsilon / root) * terms.e);
    return catch_up_stepwise(p, m, v, from, to);
}

#endif
