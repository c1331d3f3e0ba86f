// Shared by every engine kernel: configuration checks, push constants, the MLP parameter layout
// and activations. The host compiles each kernel with -D defines for the model configuration
// (kernels/src/field/model.cpp: model_defines). Every other value a kernel reads comes from
// its request builder too (train_kernel_request, render_kernel_request, plan_training's optimizer
// ...), which sets each one the kernel needs: no shader file restates a default. A switch
// tested only in #if and left undefined reads as 0 (off).
#if !defined(IN_DIM) || !defined(IN_PAD) || !defined(HIDDEN) || !defined(LAYERS) || \
    !defined(OUT_DIM) || !defined(OUT_PAD) || !defined(HIDDEN_ACT) || !defined(OUTPUT_ACT)
#error "the model configuration defines are missing"
#endif

// Mirrors ff::engine::detail::PushConstants (128 bytes, all that every device offers).
layout(push_constant) uniform Push {
    uint grid_w, grid_h, width, height;   // feature grid; image or render size
    uint batch, step, seed_lo, seed_hi;   // samples this step; step index; RNG seed
    float lr, beta1, beta2, epsilon;      // Adam (lr: the MLP's)
    float bias_correction1, bias_correction2; // 1 - beta^t
    uint count, slot;                     // kernel-specific count; loss log slot
    float lr_grid;                        // the encoding's learning rate at this step
    uint cells;                           // encoding optimizer cells
    uint steps_total, catch_up_limit;     // the schedule's length; see encoding_adam.glsl
    float lr_grid_base, lr_warmup, lr_decay_start, lr_final_scale; // the encoding's schedule
    uint encoding_groups;                 // optimizer.comp: workgroups over the encoding's cells
    uint first_row;                       // render.comp, squared_error.comp: the band's first row;
                                          // train_step.comp: the dispatch's first tile (count: its tiles)
    float log2_beta1, log2_beta2, log2_lr_final_scale; // encoding_adam.glsl's skipped steps
    uint catch_up_last;                   // encoding_adam.glsl: the last entry of its table
    uvec2 buffer_address;                 // the one buffer reached by address, if any
                                          // (encoding_state.glsl's ENC_STATE_BY_ADDRESS)
} pc;

const float PI = 3.14159265358979323846;

// The loss is the mean over the batch and the output channels of the squared error: its
// derivative is this factor times (prediction - target).
#define LOSS_SCALE (2.0 / float(pc.batch * OUT_DIM))
// The tensor-core kernels carry the backward deltas in fp16 multiplied by this (mlp_coopmat*.glsl's
// CM_LOSS_SCALE), so that they stay in fp16's normal range; the encoding's input gradients come out
// as an fp16 value times LOSS_SCALE / FP16_DELTA_SCALE, which the deferred sums' fp16 inputs then
// hold exactly (encoding_deferred_inputs.glsl).
#define FP16_DELTA_SCALE 128.0

#define ACT_NONE 0
#define ACT_RELU 1
#define ACT_SIGMOID 2
#define ACT_SINE 3

// MLP parameter layout (the contract of Model::mlp): matrix l is [out_pad][in_pad] weights then
// [out_pad] biases; matrices 0..LAYERS, the last one producing OUT_PAD outputs.
#define MATRICES (LAYERS + 1)
#define IN_L(l) ((l) == 0 ? IN_DIM : HIDDEN)       // logical inputs of matrix l
#define IN_PAD_L(l) ((l) == 0 ? IN_PAD : HIDDEN)   // row stride of matrix l
#define OUT_L(l) ((l) == LAYERS ? OUT_DIM : HIDDEN) // logical outputs of matrix l
#define OUT_PAD_L(l) ((l) == LAYERS ? OUT_PAD : HIDDEN)
#define W_OFF(l) ((l) == 0 ? 0 : (HIDDEN * IN_PAD + HIDDEN) + ((l) - 1) * (HIDDEN * HIDDEN + HIDDEN))
#define B_OFF(l) (W_OFF(l) + OUT_PAD_L(l) * IN_PAD_L(l))
#define MLP_PARAMS (W_OFF(LAYERS) + OUT_PAD * HIDDEN + OUT_PAD)

// Frequency factors of sine layers (SIREN): matrix l computes act(OMEGA_L(l) * (W x + b)); the
// derivative the backward pass sees is OMEGA_L(l) * act'(.), so gradients need nothing else.
#define OMEGA_L(l) ((l) == 0 ? FIRST_OMEGA : ((l) < LAYERS ? HIDDEN_OMEGA : 1.0))

const int MAXW = max(max(IN_PAD, HIDDEN), OUT_PAD); // widest activation vector

float act_apply(int kind, float z) {
    if (kind == ACT_RELU) return max(z, 0.0);
    if (kind == ACT_SIGMOID) return 1.0 / (1.0 + exp(-z));
    if (kind == ACT_SINE) return sin(z);
    return z;
}

// d act / d z, given the pre-activation z and the output y.
float act_derivative(int kind, float z, float y) {
    if (kind == ACT_RELU) return z > 0.0 ? 1.0 : 0.0;
    if (kind == ACT_SIGMOID) return y * (1.0 - y);
    if (kind == ACT_SINE) return cos(z);
    return 1.0;
}
