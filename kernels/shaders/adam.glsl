// Adam on fp32 master values. adam_update takes the learning rate and the bias corrections
// (1 - beta^t) of its step; adam_step takes them from the push constants, so the host owns the
// MLP's schedule (the encoding's: encoding_adam.glsl).
float adam_update(float param, float grad, inout float m, inout float v, float lr, float bc1, float bc2) {
    m = pc.beta1 * m + (1.0 - pc.beta1) * grad;
    v = pc.beta2 * v + (1.0 - pc.beta2) * grad * grad;
    float m_hat = m / bc1;
    float v_hat = v / bc2;
    return param - lr * m_hat / (sqrt(v_hat) + pc.epsilon);
}

float adam_step(float param, float grad, inout float m, inout float v, float lr) {
    return adam_update(param, grad, m, v, lr, pc.bias_correction1, pc.bias_correction2);
}
