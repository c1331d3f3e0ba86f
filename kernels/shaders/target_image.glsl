// The training image, read by pixel index: RGBA8 (one word a pixel) or, with IMAGE_RGBA16, RGBA16
// (two words: RG, BA). A large image lies in IMAGE_PARTS buffers (1..8) of 2^IMAGE_PART_SHIFT
// words each, at bindings IMAGE_BINDING, IMAGE_BINDING + 1, ...
// (kernels/src/field/target_image.hpp), so that no buffer exceeds maxStorageBufferRange. One part
// (every image up to 4 GB on NVIDIA) reads as a single buffer, with no part arithmetic.

// IMAGE_PART_LIST(X) (the host's) is X(0) X(1) ... X(IMAGE_PARTS - 1).
#define FF_IMAGE_PART(k) \
    layout(std430, binding = IMAGE_BINDING + k) readonly buffer ImagePart##k { uint words[]; } image_part##k;
#define FF_IMAGE_PART_CASE(k) case uint(k): return image_part##k.words[i];

IMAGE_PART_LIST(FF_IMAGE_PART)

uint image_word(uint w) {
#if IMAGE_PARTS == 1
    return image_part0.words[w];
#else
    const uint part = w >> IMAGE_PART_SHIFT, i = w & ((1u << IMAGE_PART_SHIFT) - 1u);
    switch (part) { IMAGE_PART_LIST(FF_IMAGE_PART_CASE) }
    return 0u;
#endif
}

// A pixel's words as stored (RGBA8: one, the second unused; RGBA16: two). Kept apart from their
// unpacking so the training step can load a tile's words ahead of using them.
uvec2 target_words(uint pixel) {
#ifdef IMAGE_RGBA16
    return uvec2(image_word(2u * pixel), image_word(2u * pixel + 1u));
#else
    return uvec2(image_word(pixel), 0u);
#endif
}

// The colour in a pixel's words, each channel in [0, 1].
vec3 target_from_words(uvec2 words) {
#ifdef IMAGE_RGBA16
    return vec3(unpackUnorm2x16(words.x), unpackUnorm2x16(words.y).x);
#else
    return unpackUnorm4x8(words.x).rgb;
#endif
}

// The target colour of a pixel, each channel in [0, 1].
vec3 target_rgb(uint pixel) { return target_from_words(target_words(pixel)); }
