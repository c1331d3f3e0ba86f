// Adam on fp32 master values; the learning rate and the bias corrections (1 - beta^t) come from the
// push constants, so the host owns the schedule.
#ifndef FF_ADAM_GLSL
#define FF_ADAM_GLSL

float adam_step(float param, float grad, inout float m, inout float v, float lr) {
    m = pc.beta1 * m + (1.0 - pc.beta1) * grad;
    v = pc.beta2 * v + (1.0 - pc.beta2) * grad * grad;
    float m_hat = m / pc.bias_correction1;
    float v_hat = v / pc.bias_correction2;
    return param - lr * m_hat / (sqrt(v_hat) + pc.epsilon);
}

#endif
