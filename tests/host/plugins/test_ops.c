/* A plugin for the host's tests, written in plain C against plugin.h only (no SDK): it proves
 * the ABI is usable from C and gives the tests small ops with known behaviour. */
#include <fieldflow/plugin.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
#define PORT(n, t, d) {sizeof(ff_port_decl), n, t, d, 0}
#define OPTIONAL_PORT(n, t, d) {sizeof(ff_port_decl), n, t, d, 1}
#define PARAM(n, k, def, lo, hi, ch, d) {sizeof(ff_param_decl), n, k, def, lo, hi, ch, d, 0, NULL}
#define PATH_PARAM(n, flags, d) {sizeof(ff_param_decl), n, FF_PARAM_STRING, NULL, 0, -1, NULL, d, flags, NULL}
#define EMPTY_IMAGE {sizeof(ff_image), 0, 0, 0, NULL, 0}

/* How often each op executed, for the tests' "computed once" and caching checks. */
enum { RUN_CONSTANT, RUN_FIT, RUN_READ_NUMBER, RUN_SLEEP, RUN_KINDS };
static atomic_int g_runs[RUN_KINDS];

FF_EXPORT int ff_test_runs(const char* op) {
    if (strcmp(op, "Constant") == 0) return atomic_load(&g_runs[RUN_CONSTANT]);
    if (strcmp(op, "Fit") == 0) return atomic_load(&g_runs[RUN_FIT]);
    if (strcmp(op, "ReadNumber") == 0) return atomic_load(&g_runs[RUN_READ_NUMBER]);
    if (strcmp(op, "Sleep") == 0) return atomic_load(&g_runs[RUN_SLEEP]);
    return -1;
}

FF_EXPORT void ff_test_reset_runs(void) {
    for (int i = 0; i < RUN_KINDS; ++i) atomic_store(&g_runs[i], 0);
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static float* copy_image(const ff_host_api* host, ff_context* ctx, const char* out_port,
                         const ff_image* in) {
    float* out = host->output_image(ctx, out_port, in->width, in->height, in->channels);
    if (out) memcpy(out, in->pixels, sizeof(float) * in->width * in->height * in->channels);
    return out;
}

/* ---- Constant: an image of one value (or a horizontal ramp) ---------------------------- */
static ff_status constant_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    int64_t w = 0, h = 0;
    double value = 0;
    const char* mode = NULL;
    if (!host->param_int(ctx, "width", &w) || !host->param_int(ctx, "height", &h) ||
        !host->param_float(ctx, "value", &value) || !host->param_string(ctx, "mode", &mode)) {
        host->set_error(ctx, "cannot read params");
        return FF_ERROR;
    }
    atomic_fetch_add(&g_runs[RUN_CONSTANT], 1);
    float* px = host->output_image(ctx, "image", (uint32_t)w, (uint32_t)h, 3);
    if (!px) return FF_ERROR;
    int ramp = strcmp(mode, "ramp") == 0;
    double start = 0; /* read only where it applies (mode ramp) */
    if (ramp && !host->param_float(ctx, "ramp_start", &start)) {
        host->set_error(ctx, "cannot read ramp_start");
        return FF_ERROR;
    }
    for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                px[(y * w + x) * 3 + c] = (float)(ramp ? start + (value - start) * (double)x / (double)w : value);
    return FF_OK;
}

static const ff_port_decl constant_out[] = {PORT("image", FF_TYPE_IMAGE, "the image")};
static const ff_param_decl constant_params[] = {
    PARAM("width", FF_PARAM_INT, "4", 1, 4096, NULL, "width in pixels"),
    PARAM("height", FF_PARAM_INT, "4", 1, 4096, NULL, "height in pixels"),
    PARAM("value", FF_PARAM_FLOAT, "0.5", -1000, 1000, NULL, "the value of every channel"),
    PARAM("mode", FF_PARAM_ENUM, "flat", 0, -1, "flat|ramp", "flat, or a ramp from ramp_start to value"),
    {sizeof(ff_param_decl), "ramp_start", FF_PARAM_FLOAT, "0", -1000, 1000, NULL,
     "where the ramp starts", 0, "mode=ramp"},
    /* Unused by execute; for the cache-key tests. */
    {sizeof(ff_param_decl), "log_every", FF_PARAM_INT, "0", 0, 1000000, NULL,
     "a cadence: left out of the cache key", FF_PARAM_NOT_IN_KEY, NULL},
    {sizeof(ff_param_decl), "notes", FF_PARAM_STRING, "", 0, -1, NULL,
     "a side-output folder: only set or unset is in the cache key", FF_PARAM_SIDE_OUTPUT, NULL},
};
static const ff_op_decl constant_op = {
    sizeof(ff_op_decl), "Constant", "test", "An image filled with one value. Used by the tests.",
    FF_OP_PURE, 1, NULL, 0, constant_out, COUNT(constant_out), constant_params,
    COUNT(constant_params), constant_execute, NULL, NULL, NULL, NULL};

/* ---- Add: a + b, times scale ------------------------------------------------------------- */
static ff_status add_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    ff_image a = EMPTY_IMAGE, b = EMPTY_IMAGE;
    double scale = 1;
    if (!host->input_image(ctx, "a", &a) || !host->input_image(ctx, "b", &b) ||
        !host->param_float(ctx, "scale", &scale)) {
        host->set_error(ctx, "cannot read inputs");
        return FF_ERROR;
    }
    if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
        host->set_error(ctx, "images 'a' and 'b' differ in size");
        return FF_ERROR;
    }
    float* out = host->output_image(ctx, "sum", a.width, a.height, a.channels);
    if (!out) return FF_ERROR;
    size_t n = (size_t)a.width * a.height * a.channels;
    for (size_t i = 0; i < n; ++i) out[i] = (float)((a.pixels[i] + b.pixels[i]) * scale);
    return FF_OK;
}

static const ff_port_decl add_in[] = {PORT("a", FF_TYPE_IMAGE, "first image"),
                                      PORT("b", FF_TYPE_IMAGE, "second image")};
static const ff_port_decl add_out[] = {PORT("sum", FF_TYPE_IMAGE, "(a + b) * scale")};
static const ff_param_decl add_params[] = {
    PARAM("scale", FF_PARAM_FLOAT, "1", -100, 100, NULL, "factor applied to the sum")};
static const ff_op_decl add_op = {
    sizeof(ff_op_decl), "Add", "test", "Adds two images of the same size.", FF_OP_PURE, 1, add_in,
    COUNT(add_in), add_out, COUNT(add_out), add_params, COUNT(add_params), add_execute, NULL, NULL, NULL, NULL};

/* ---- Fail: always fails with its message ------------------------------------------------ */
static ff_status fail_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    const char* message = NULL;
    host->param_string(ctx, "message", &message);
    host->set_error(ctx, message);
    return FF_ERROR;
}

static const ff_port_decl fail_in[] = {OPTIONAL_PORT("image", FF_TYPE_IMAGE, "ignored")};
static const ff_port_decl fail_out[] = {PORT("image", FF_TYPE_IMAGE, "never written")};
static const ff_param_decl fail_params[] = {
    PARAM("message", FF_PARAM_STRING, "deliberate failure", 0, -1, NULL, "the error message")};
static const ff_op_decl fail_op = {
    sizeof(ff_op_decl), "Fail", "test", "Always fails.", FF_OP_PURE, 1, fail_in, COUNT(fail_in),
    fail_out, COUNT(fail_out), fail_params, COUNT(fail_params), fail_execute, NULL, NULL, NULL, NULL};

/* ---- Sleep: passes its input through after `ms`, polling cancelled() ------------------------ */
static ff_status sleep_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    ff_image in = EMPTY_IMAGE;
    int64_t ms = 0;
    if (!host->input_image(ctx, "image", &in) || !host->param_int(ctx, "ms", &ms)) {
        host->set_error(ctx, "cannot read inputs");
        return FF_ERROR;
    }
    atomic_fetch_add(&g_runs[RUN_SLEEP], 1);
    for (int64_t waited = 0; waited < ms; waited += 5) {
        if (host->cancelled(ctx)) return FF_CANCELLED;
        host->progress(ctx, (uint64_t)waited, (uint64_t)ms, "sleeping");
        sleep_ms(5);
    }
    return copy_image(host, ctx, "image", &in) ? FF_OK : FF_ERROR;
}

static const ff_port_decl sleep_in[] = {PORT("image", FF_TYPE_IMAGE, "passed through")};
static const ff_port_decl sleep_out[] = {PORT("image", FF_TYPE_IMAGE, "the input")};
static const ff_param_decl sleep_params[] = {
    PARAM("ms", FF_PARAM_INT, "100", 0, 60000, NULL, "milliseconds to wait"),
    PARAM("tag", FF_PARAM_STRING, "", 0, -1, NULL, "makes otherwise equal nodes distinct")};
static const ff_op_decl sleep_op = {
    sizeof(ff_op_decl), "Sleep", "test", "Waits, then passes its input through.", FF_OP_PURE, 1,
    sleep_in, COUNT(sleep_in), sleep_out, COUNT(sleep_out), sleep_params, COUNT(sleep_params),
    sleep_execute, NULL, NULL, NULL, NULL};

/* ---- Split: left and right halves -------------------------------------------------------- */
static ff_status split_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    ff_image in = EMPTY_IMAGE;
    if (!host->input_image(ctx, "image", &in)) return FF_ERROR;
    uint32_t half = in.width / 2 ? in.width / 2 : 1;
    uint32_t rest = in.width - half ? in.width - half : 1;
    float* left = host->output_image(ctx, "left", half, in.height, in.channels);
    float* right = host->output_image(ctx, "right", rest, in.height, in.channels);
    if (!left || !right) return FF_ERROR;
    for (uint32_t y = 0; y < in.height; ++y)
        for (uint32_t x = 0; x < in.width; ++x)
            for (uint32_t c = 0; c < in.channels; ++c) {
                float v = in.pixels[((size_t)y * in.width + x) * in.channels + c];
                if (x < half) left[((size_t)y * half + x) * in.channels + c] = v;
                else right[((size_t)y * rest + (x - half)) * in.channels + c] = v;
            }
    return FF_OK;
}

static const ff_port_decl split_in[] = {PORT("image", FF_TYPE_IMAGE, "image to split")};
static const ff_port_decl split_out[] = {PORT("left", FF_TYPE_IMAGE, "left half"),
                                         PORT("right", FF_TYPE_IMAGE, "right half")};
static const ff_op_decl split_op = {
    sizeof(ff_op_decl), "Split", "test", "Splits an image into its left and right halves.",
    FF_OP_PURE, 1, split_in, COUNT(split_in), split_out, COUNT(split_out), NULL, 0, split_execute,
    NULL, NULL, NULL, NULL};

/* ---- Stats: mean as JSON ----------------------------------------------------------------- */
static double mean_of(const ff_image* im) {
    size_t n = (size_t)im->width * im->height * im->channels;
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += im->pixels[i];
    return n ? sum / (double)n : 0;
}

static ff_status stats_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    ff_image in = EMPTY_IMAGE;
    if (!host->input_image(ctx, "image", &in)) return FF_ERROR;
    char text[128];
    int n = snprintf(text, sizeof text, "{\"mean\": %.9g}", mean_of(&in));
    void* out = host->output_blob(ctx, "stats", (size_t)n);
    if (!out) return FF_ERROR;
    memcpy(out, text, (size_t)n);
    return FF_OK;
}

static const ff_port_decl stats_in[] = {PORT("image", FF_TYPE_IMAGE, "image to measure")};
static const ff_port_decl stats_out[] = {PORT("stats", FF_TYPE_JSON, "{\"mean\": m}")};
static const ff_param_decl stats_params[] = {
    PARAM("labels", FF_PARAM_STRING_LIST, "[]", 0, -1, NULL, "names, unused")};
static const ff_op_decl stats_op = {
    sizeof(ff_op_decl), "Stats", "test", "The mean of an image, as JSON.", FF_OP_PURE, 1,
    stats_in, COUNT(stats_in), stats_out, COUNT(stats_out), stats_params, COUNT(stats_params),
    stats_execute, NULL, NULL, NULL, NULL};

/* ---- Fit: an "expensive" op whose results persist in the disk cache ------------------------ */
static ff_status fit_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    ff_image in = EMPTY_IMAGE;
    int64_t steps = 0;
    if (!host->input_image(ctx, "image", &in) || !host->param_int(ctx, "steps", &steps))
        return FF_ERROR;
    atomic_fetch_add(&g_runs[RUN_FIT], 1);
    char text[64];
    int n = snprintf(text, sizeof text, "%.9g", mean_of(&in) * (double)steps);
    void* out = host->output_blob(ctx, "model", (size_t)n);
    if (!out) return FF_ERROR;
    memcpy(out, text, (size_t)n);
    return FF_OK;
}

static const ff_port_decl fit_in[] = {PORT("image", FF_TYPE_IMAGE, "image to fit")};
static const ff_port_decl fit_out[] = {PORT("model", FF_TYPE_MODEL, "mean * steps, as text")};
static const ff_param_decl fit_params[] = {
    PARAM("steps", FF_PARAM_INT, NULL, 1, 1000000, NULL, "training steps (required)")};
static const ff_op_decl fit_op = {
    sizeof(ff_op_decl), "Fit", "test", "Pretends to train a model.", FF_OP_CACHE_ON_DISK, 1, fit_in,
    COUNT(fit_in), fit_out, COUNT(fit_out), fit_params, COUNT(fit_params), fit_execute, NULL, NULL, NULL, NULL};

/* ---- Render: an image from a model; validate() checks the size list ----------------------- */
static ff_status render_validate(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    int64_t size[2];
    if (host->param_int_list(ctx, "size", size, 2) != 2) {
        host->set_error_param(ctx, "size", "must have 2 items: [width, height]");
        return FF_ERROR;
    }
    return FF_OK;
}

static ff_status render_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    size_t bytes = 0;
    const char* model = (const char*)host->input_blob(ctx, "model", &bytes);
    int64_t size[2];
    if (!model || host->param_int_list(ctx, "size", size, 2) != 2) return FF_ERROR;
    char text[64] = {0};
    memcpy(text, model, bytes < sizeof text - 1 ? bytes : sizeof text - 1);
    float value = (float)atof(text);
    float* px = host->output_image(ctx, "image", (uint32_t)size[0], (uint32_t)size[1], 3);
    if (!px) return FF_ERROR;
    for (size_t i = 0; i < (size_t)size[0] * (size_t)size[1] * 3; ++i) px[i] = value;
    return FF_OK;
}

static const ff_port_decl render_in[] = {PORT("model", FF_TYPE_MODEL, "a Fit model")};
static const ff_port_decl render_out[] = {PORT("image", FF_TYPE_IMAGE, "the rendered image")};
static const ff_param_decl render_params[] = {
    PARAM("size", FF_PARAM_INT_LIST, "[4, 4]", 1, 4096, NULL, "[width, height]")};
static const ff_op_decl render_op = {
    sizeof(ff_op_decl), "Render", "test", "Renders a model.", FF_OP_PURE, 1, render_in,
    COUNT(render_in), render_out, COUNT(render_out), render_params, COUNT(render_params),
    render_execute, render_validate, NULL, NULL, NULL};

/* ---- ReadNumber / WriteNumber: ops that touch files --------------------------------------- */
static ff_status read_number_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    const char* path = NULL;
    if (!host->param_string(ctx, "path", &path)) return FF_ERROR;
    atomic_fetch_add(&g_runs[RUN_READ_NUMBER], 1);
    FILE* f = fopen(path, "r");
    double value = 0;
    if (!f || fscanf(f, "%lf", &value) != 1) {
        if (f) fclose(f);
        host->set_error_param(ctx, "path", "cannot read a number from the file");
        return FF_ERROR;
    }
    fclose(f);
    float* px = host->output_image(ctx, "image", 2, 2, 3);
    if (!px) return FF_ERROR;
    for (int i = 0; i < 12; ++i) px[i] = (float)value;
    return FF_OK;
}

static const ff_port_decl read_number_out[] = {PORT("image", FF_TYPE_IMAGE, "2x2 of the number")};
static const ff_param_decl read_number_params[] = {
    PATH_PARAM("path", FF_PARAM_READS_FILE, "text file holding a number")};
static const ff_op_decl read_number_op = {
    sizeof(ff_op_decl), "ReadNumber", "test", "Reads a number from a text file.",
    FF_OP_READS_OUTSIDE, 1, NULL, 0, read_number_out, COUNT(read_number_out), read_number_params,
    COUNT(read_number_params), read_number_execute, NULL, NULL, NULL, NULL};

static ff_status write_number_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    ff_image in = EMPTY_IMAGE;
    const char* path = NULL;
    if (!host->input_image(ctx, "image", &in) || !host->param_string(ctx, "path", &path))
        return FF_ERROR;
    char temp[4096];
    snprintf(temp, sizeof temp, "%s.tmp", path);
    FILE* f = fopen(temp, "w");
    if (!f) {
        host->set_error_param(ctx, "path", "cannot write the file");
        return FF_ERROR;
    }
    fprintf(f, "%.9g\n", mean_of(&in));
    fclose(f);
    if (rename(temp, path) != 0) {
        host->set_error_param(ctx, "path", "cannot rename the file into place");
        return FF_ERROR;
    }
    return FF_OK;
}

static const ff_port_decl write_number_in[] = {PORT("image", FF_TYPE_IMAGE, "image to measure")};
static const ff_param_decl write_number_params[] = {
    PATH_PARAM("path", FF_PARAM_WRITES_FILE, "file to write the mean to")};
static const ff_op_decl write_number_op = {
    sizeof(ff_op_decl), "WriteNumber", "test", "Writes the mean of an image to a text file.",
    FF_OP_WRITES_OUTSIDE, 1, write_number_in, COUNT(write_number_in), NULL, 0,
    write_number_params, COUNT(write_number_params), write_number_execute, NULL, NULL, NULL, NULL};

/* ---- Lazy: claims success without writing its output (a plugin bug the host must catch) --- */
static ff_status lazy_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)host; (void)ctx; (void)user;
    return FF_OK;
}

static const ff_port_decl lazy_out[] = {PORT("image", FF_TYPE_IMAGE, "never written")};
static const ff_op_decl lazy_op = {
    sizeof(ff_op_decl), "Lazy", "test", "Returns FF_OK without writing its output.", FF_OP_PURE,
    1, NULL, 0, lazy_out, COUNT(lazy_out), NULL, 0, lazy_execute, NULL, NULL, NULL, NULL};

/* ---- Resumable: counts its executions of the same work in its state folder (ABI 1.1) ------
 * Reads the count an earlier execution left in <state_dir>/count, writes count + 1 there, waits
 * `sleep_ms` (returning FF_CANCELLED if interrupted meanwhile), then fails while the file named by
 * `fail_if_exists` exists ("state folder DIR; earlier executions N") or outputs
 * {"state_dir": "DIR", "earlier": N}. DIR is "" when the host gives no folder. */
static const char* state_dir_of(const ff_host_api* host, ff_context* ctx) {
    if (host->struct_size < offsetof(ff_host_api, state_dir) + sizeof(host->state_dir) ||
        !host->state_dir)
        return NULL;
    return host->state_dir(ctx);
}

static ff_status resumable_validate(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    if (state_dir_of(host, ctx)) {
        host->set_error(ctx, "state_dir gave a folder during validate");
        return FF_ERROR;
    }
    return FF_OK;
}

static ff_status resumable_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    const char* flag = NULL;
    int64_t sleep = 0;
    if (!host->param_string(ctx, "fail_if_exists", &flag) || !host->param_int(ctx, "sleep_ms", &sleep))
        return FF_ERROR;
    const char* dir = state_dir_of(host, ctx);
    long earlier = 0;
    if (dir) {
        char path[4096], temp[4096];
        snprintf(path, sizeof path, "%s/count", dir);
        snprintf(temp, sizeof temp, "%s/count.tmp", dir);
        FILE* f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%ld", &earlier) != 1) earlier = -1;
            fclose(f);
        }
        f = fopen(temp, "w");
        if (!f || fprintf(f, "%ld\n", earlier + 1) < 0 || fclose(f) != 0 || rename(temp, path) != 0) {
            host->set_error(ctx, "cannot write the count into the state folder");
            return FF_ERROR;
        }
    }
    for (int64_t waited = 0; waited < sleep; waited += 10) {
        if (host->cancelled(ctx)) return FF_CANCELLED;
        sleep_ms(10);
    }
    char text[4400];
    FILE* probe = flag && *flag ? fopen(flag, "r") : NULL;
    if (probe) {
        fclose(probe);
        snprintf(text, sizeof text, "state folder %s; earlier executions %ld", dir ? dir : "(none)", earlier);
        host->set_error(ctx, text);
        return FF_ERROR;
    }
    int n = snprintf(text, sizeof text, "{\"state_dir\": \"%s\", \"earlier\": %ld}", dir ? dir : "", earlier);
    char* out = host->output_blob(ctx, "state", (size_t)n);
    if (!out) return FF_ERROR;
    memcpy(out, text, (size_t)n);
    return FF_OK;
}

static const ff_port_decl resumable_in[] = {OPTIONAL_PORT("image", FF_TYPE_IMAGE, "part of the work's key")};
static const ff_port_decl resumable_out[] = {PORT("state", FF_TYPE_JSON, "state folder and count")};
static const ff_param_decl resumable_params[] = {
    PARAM("fail_if_exists", FF_PARAM_STRING, "", 0, -1, NULL, "fail while this file exists"),
    PARAM("tag", FF_PARAM_INT, "0", 0, 100, NULL, "any value: part of the work's key"),
    PARAM("sleep_ms", FF_PARAM_INT, "0", 0, 60000, NULL, "milliseconds to wait after counting")};
static const ff_op_decl resumable_op = {
    sizeof(ff_op_decl), "Resumable", "test",
    "Counts its executions of the same work in its state folder. Used by the tests.",
    FF_OP_CACHE_ON_DISK, 1, resumable_in, COUNT(resumable_in), resumable_out, COUNT(resumable_out),
    resumable_params, COUNT(resumable_params), resumable_execute, resumable_validate, NULL, NULL, NULL};

/* ---- Abandon: a node that, once cancelled, leaves a call it cannot stop running (an image encode,
 * a GPU render: nodes/common/cancellable_call.hpp). The call is a thread sleeping `ms`, and an exit
 * handler joins it, as a Vulkan driver's does with its queue threads (Mesa's atexit handler), so a
 * process that ends through exit() waits for it. Logs "call started", then waits for cancellation. */
static pthread_t g_abandoned_call;
static long g_abandoned_ms;

static void* abandoned_call(void* arg) {
    (void)arg;
    sleep_ms(g_abandoned_ms);
    return NULL;
}

static void join_abandoned_call(void) { pthread_join(g_abandoned_call, NULL); }

static ff_status abandon_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    int64_t ms = 0;
    if (!host->param_int(ctx, "ms", &ms)) {
        host->set_error(ctx, "cannot read params");
        return FF_ERROR;
    }
    g_abandoned_ms = (long)ms;
    if (pthread_create(&g_abandoned_call, NULL, abandoned_call, NULL) != 0) {
        host->set_error(ctx, "cannot start a thread");
        return FF_ERROR;
    }
    atexit(join_abandoned_call);
    host->log(ctx, FF_LOG_INFO, "call started");
    for (;;) {
        if (host->cancelled(ctx)) return FF_CANCELLED;
        sleep_ms(5);
    }
}

static const ff_port_decl abandon_in[] = {PORT("image", FF_TYPE_IMAGE, "ignored")};
static const ff_port_decl abandon_out[] = {PORT("image", FF_TYPE_IMAGE, "never written")};
static const ff_param_decl abandon_params[] = {
    PARAM("ms", FF_PARAM_INT, "60000", 0, 600000, NULL, "how long the abandoned call runs")};
static const ff_op_decl abandon_op = {
    sizeof(ff_op_decl), "Abandon", "test",
    "Runs until cancelled, leaving a call behind that an exit handler waits for.", FF_OP_PURE, 1,
    abandon_in, COUNT(abandon_in), abandon_out, COUNT(abandon_out), abandon_params,
    COUNT(abandon_params), abandon_execute, NULL, NULL, NULL, NULL};

/* ---- Warm: an op with prepare and release (ABI 1.4). prepare records "<tag>@<device>" (and
 * with `fail_prepare` then tries to write an output and fails); execute waits for its tag's record
 * (a sign, never a fixed sleep; 30 s at most), outputs it as JSON {"prepared": "<record>"} and
 * records "ran:<tag>"; release records "released:<tag>". ff_test_warm_records() returns them all,
 * in order, each after a ';'. */
static pthread_mutex_t g_warm_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_warm_cond = PTHREAD_COND_INITIALIZER;
static char g_warm_records[4096]; /* ";tag@device;tag@device;..." */

static void warm_record_text(const char* kind, const char* tag) {
    pthread_mutex_lock(&g_warm_mutex);
    size_t used = strlen(g_warm_records);
    snprintf(g_warm_records + used, sizeof g_warm_records - used, ";%s:%s", kind, tag);
    pthread_mutex_unlock(&g_warm_mutex);
}

FF_EXPORT const char* ff_test_warm_records(void) { return g_warm_records; }

static void warm_release(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    const char* tag = NULL;
    if (host->param_string(ctx, "tag", &tag)) warm_record_text("released", tag);
}

static ff_status warm_prepare(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    const char* tag = NULL;
    int32_t fail = 0;
    if (!host->param_string(ctx, "tag", &tag) || !host->param_bool(ctx, "fail_prepare", &fail)) return FF_ERROR;
    pthread_mutex_lock(&g_warm_mutex);
    size_t used = strlen(g_warm_records);
    snprintf(g_warm_records + used, sizeof g_warm_records - used, ";%s@%s", tag, host->device(ctx));
    pthread_cond_broadcast(&g_warm_cond);
    pthread_mutex_unlock(&g_warm_mutex);
    if (!fail) return FF_OK;
    host->output_blob(ctx, "prepared", 1); /* refused: no outputs in prepare */
    host->set_error(ctx, "prepare failed on purpose");
    return FF_ERROR;
}

/* The record of `tag` in g_warm_records, or NULL. Called with the mutex held. */
static const char* warm_record(const char* tag, size_t* length) {
    size_t tag_length = strlen(tag);
    for (const char* p = strchr(g_warm_records, ';'); p; p = strchr(p + 1, ';'))
        if (strncmp(p + 1, tag, tag_length) == 0 && p[1 + tag_length] == '@') {
            const char* end = strchr(p + 1, ';');
            *length = end ? (size_t)(end - p - 1) : strlen(p + 1);
            return p + 1;
        }
    return NULL;
}

static ff_status warm_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)user;
    const char* tag = NULL;
    if (!host->param_string(ctx, "tag", &tag)) return FF_ERROR;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    char text[512];
    pthread_mutex_lock(&g_warm_mutex);
    size_t length = 0;
    const char* record = NULL;
    while (!(record = warm_record(tag, &length)))
        if (pthread_cond_timedwait(&g_warm_cond, &g_warm_mutex, &deadline) != 0) break;
    int n = record ? snprintf(text, sizeof text, "{\"prepared\": \"%.*s\"}", (int)length, record) : 0;
    pthread_mutex_unlock(&g_warm_mutex);
    if (!record) {
        host->set_error(ctx, "prepare did not run within 30 s");
        return FF_ERROR;
    }
    char* out = host->output_blob(ctx, "prepared", (size_t)n);
    if (!out) return FF_ERROR;
    memcpy(out, text, (size_t)n);
    warm_record_text("ran", tag);
    return FF_OK;
}

static const ff_port_decl warm_in[] = {OPTIONAL_PORT("image", FF_TYPE_IMAGE, "ignored")};
static const ff_port_decl warm_out[] = {PORT("prepared", FF_TYPE_JSON, "what prepare saw")};
static const ff_param_decl warm_params[] = {
    PARAM("tag", FF_PARAM_STRING, "t", 0, -1, NULL, "names this node's record"),
    PARAM("fail_prepare", FF_PARAM_BOOL, "false", 0, -1, NULL, "prepare misuses the API and fails")};
static const ff_op_decl warm_op = {
    sizeof(ff_op_decl), "Warm", "test", "Reports what its prepare saw. Used by the tests.", FF_OP_PURE, 1,
    warm_in, COUNT(warm_in), warm_out, COUNT(warm_out), warm_params, COUNT(warm_params),
    warm_execute, NULL, NULL, warm_prepare, warm_release};

/* ---- The plugin -------------------------------------------------------------------------- */
static const ff_op_decl* const ops[] = {&constant_op, &add_op, &fail_op, &sleep_op,
                                        &split_op, &stats_op, &fit_op, &render_op,
                                        &read_number_op, &write_number_op, &lazy_op,
                                        &resumable_op, &abandon_op, &warm_op};

static const ff_plugin_info info = {sizeof(ff_plugin_info), FF_ABI_MAJOR, FF_ABI_MINOR, "test",
                                    "1.0.0", ops, COUNT(ops)};

FF_EXPORT const ff_plugin_info* fieldflow_plugin(void) { return &info; }
