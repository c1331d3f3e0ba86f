// Lazy dense Adam's catch-up of one parameter (encoding_adam.glsl): the zero-gradient steps a cell
// skipped, in closed form. Shared by the optimizer and the settle pass, which write the caught-up
// cells.
// The including kernel declares `enc_catch_up` (the host's table,
// kernels/src/field/adam_schedule.hpp) and uses common.glsl's push constants.
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
// epsilon is not negligible next to sqrt(v) (below). The moments and the bias corrections'
// powers as running products, as eager Adam keeps them, not recomputed with exp2 at each step
// (five exp2 a step made a large photo's step twice as slow; bench/archive/RESULTS.md, "lazy dense
// Adam's cells read caught up by the training step").
float catch_up_stepwise(float p, float m, float v, uint from, uint to) {
    const uint steps = min(to - from, pc.catch_up_limit);
    const float b1 = exp2(pc.log2_beta1), b2 = exp2(pc.log2_beta2);
    float b1t = exp2(float(from) * pc.log2_beta1), b2t = exp2(float(from) * pc.log2_beta2);
    for (uint j = 1u; j <= steps; ++j) {
        b1t *= b1;
        b2t *= b2;
        m *= b1;
        v *= b2;
        p -= encoding_lr(from + j) * (m / (1.0 - b1t)) / (sqrt(v / (1.0 - b2t)) + pc.epsilon);
    }
    return p;
}

// S_0(f) .. S_2(f) of the host's table (kernels/src/field/adam_schedule.hpp; .w unused), constant
// past its end.
vec4 catch_up_sums(uint f) { return enc_catch_up[min(f, pc.catch_up_last)]; }

// What the skipped steps from + 1 .. to share, whatever the parameter: with no gradient the
// moments decay in closed form (m beta1^j, v beta2^j after j steps), so the moves of all skipped
// steps add up to m / sqrt(v) times a series in delta = epsilon / sqrt(v) whose terms are known
// sums (adam_schedule.hpp derives them): T_n, two lookups each whatever the gap.
struct CatchUpTerms {
    vec4 t;        // T_0 (the moves without epsilon) .. T_2; .w unused
    float v_floor; // beta2^(j/2) at the last step that still moves a parameter
};
CatchUpTerms catch_up_terms(uint from, uint to) {
    const float k = float(to - from);
    const vec4 at_from = catch_up_sums(from), at_to = catch_up_sums(to);
    // q_n^k = (beta1 / beta2^((n + 1) / 2))^k (.w: the table's zeros).
    const vec4 log2_q = vec4(pc.log2_beta1) - vec4(0.5, 1.0, 1.5, 2.0) * pc.log2_beta2;
    CatchUpTerms terms;
    terms.t = at_from - exp2(k * log2_q) * at_to;
    terms.v_floor = exp2(float(min(to - from, pc.catch_up_limit)) * 0.5 * pc.log2_beta2);
    return terms;
}

// The most delta / beta2^(j/2) over the skipped steps for which the series is taken: its error,
// of order 0.01^3, is 1e-6 of the moves. Elsewhere (gradients well under the fixed-point sums'
// unit at the default epsilon of 1e-15) the steps are taken one by one. The second-order term
// keeps that rare: with the first-order form alone (up to 1e-3, its d^2 = 1e-6) ever more cells'
// gradients come down to that unit as training converges, so ever more cells take their steps one
// by one and a large photo's step grows over a long run (bench/archive/RESULTS.md, "lazy dense
// Adam's cells read caught up by the training step").
const float CATCH_UP_SERIES_MAX_D = 0.01;

// Parameter p with moments m, v at step `from`, brought to step `to` (from < to). Up to the
// catch-up limit past which no step moves a parameter.
float caught_up_parameter(float p, float m, float v, CatchUpTerms terms, uint from, uint to) {
    if (m == 0.0) return p;
    const float root = sqrt(v);
    if (v > 0.0 && pc.epsilon <= CATCH_UP_SERIES_MAX_D * root * terms.v_floor) {
        const float delta = pc.epsilon / root;
        return p - (m / root) * (terms.t.x - delta * (terms.t.y - delta * terms.t.z));
    }
    // Moves that together stay under half of p's spacing on either side (at least |p| 2^-25) leave
    // p as it is, each on its own too (epsilon only shrinks them), as the eager form's steps would:
    // a cell whose moments have decayed for hundreds of steps need not take them one by one.
    if (v > 0.0 && abs(m / root) * terms.t.x < 0.2 * abs(p) * exp2(-23.0)) return p;
    return catch_up_stepwise(p, m, v, from, to);
}
