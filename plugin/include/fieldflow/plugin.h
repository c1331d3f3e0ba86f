/*
 * fieldflow plugin ABI.
 *
 * This header is the whole contract between the fieldflow host and a plugin. It is plain C so
 * that any compiler (and any C++ standard library) can sit on either side of it.
 *
 * Stability rules (as OpenFX and VapourSynth keep theirs):
 *  - A plugin exports exactly one symbol, `fieldflow_plugin`, returning a static description of
 *    its ops. The host refuses a plugin whose `abi_major` differs from FF_ABI_MAJOR, and one whose
 *    `abi_minor` is newer than its own.
 *  - Every struct starts with `struct_size`. New fields are only ever appended, so a newer host can
 *    read an older plugin's structs (fields past `struct_size` take their documented defaults), and
 *    the host API table only grows: a plugin checks `struct_size` before calling a newer entry.
 *  - No C++ exception, no allocation and no ownership crosses the boundary. Values belong to the
 *    host; plugins read inputs through views and write outputs into buffers the host allocates.
 *    The C++ SDK (fieldflow/node.hpp) catches every exception inside `execute` and reports it
 *    through `set_error`.
 */
#ifndef FIELDFLOW_PLUGIN_H
#define FIELDFLOW_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FF_ABI_MAJOR 1u
#define FF_ABI_MINOR 4u

#if defined(_WIN32)
#define FF_EXPORT __declspec(dllexport)
#else
#define FF_EXPORT __attribute__((visibility("default")))
#endif

/* Name of the single entry point a plugin exports. */
#define FF_PLUGIN_ENTRY_NAME "fieldflow_plugin"

typedef enum ff_status {
    FF_OK = 0,
    FF_ERROR = 1,     /* the op failed; the message was given through set_error */
    FF_CANCELLED = 2, /* the op noticed cancelled() and stopped early */
} ff_status;

/* ---- Port types ------------------------------------------------------------------------------
 * A port type is a short lowercase string. The host connects an output to an input only if the
 * strings are equal, or the input's type is FF_TYPE_ANY. Built-in types:
 *   "image" : float RGB pixels, see ff_image. Layout fixed by this header.
 *   "model" : a model file's bytes (docs/model-format.md), as a blob.
 *   "json"  : UTF-8 JSON text, as a blob (metrics, reports' data).
 * Plugins may define their own types; their values are blobs.
 */
#define FF_TYPE_IMAGE "image"
#define FF_TYPE_MODEL "model"
#define FF_TYPE_JSON "json"
#define FF_TYPE_ANY "any"

/* An image: `height` rows of `width` pixels of `channels` interleaved floats, row-major, no padding.
 * Values are nominally in [0, 1], non-linear (sRGB-encoded) as read from the file. Channels: 1
 * (gray), 3 (RGB) or 4 (RGBA, straight alpha); other counts are plugin-defined. */
typedef struct ff_image {
    uint32_t struct_size;
    uint32_t width;
    uint32_t height;
    uint32_t channels;
    const float* pixels;
    /* ABI 1.2 (the host fills it only when struct_size covers it): bits per sample of the file the
     * image came from, 8 or 16 (integer) or 32 (float); 0 when unknown. The pixels are floats
     * whatever it says; it tells writers and metrics what precision the source had. */
    uint32_t bits;
} ff_image;

/* ---- Declarations ------------------------------------------------------------------------- */

typedef enum ff_param_kind {
    FF_PARAM_INT = 0,      /* int64; range [min, max] checked by the host */
    FF_PARAM_FLOAT = 1,    /* double; finite; range [min, max] checked by the host */
    FF_PARAM_BOOL = 2,
    FF_PARAM_STRING = 3,   /* free text (paths, labels, "auto"-style values validated by the op) */
    FF_PARAM_ENUM = 4,     /* one of `choices` ("a|b|c"), read as a string */
    FF_PARAM_INT_LIST = 5, /* YAML sequence of ints (or one int); each checked against [min, max] */
    FF_PARAM_STRING_LIST = 6,
} ff_param_kind;

/* Flags on a param (ABI 1.2), telling the host what the param does not change. */
typedef enum ff_param_flags {
    FF_PARAM_IN_KEY = 0,         /* the default: the param may change the outputs; part of the key */
    FF_PARAM_NOT_IN_KEY = 1u,    /* only sets a cadence (how often to log or checkpoint): never
                                    changes the outputs, so the cache key leaves it out */
    FF_PARAM_SIDE_OUTPUT = 2u,   /* STRING: a file or folder where the op writes side files and
                                    reports each through host->side_file(). The key holds only
                                    whether it is empty; the files are kept with a cached result
                                    and written again under the current path on a cache hit. */
    FF_PARAM_READS_FILE = 4u,    /* STRING: the path of a file the op reads */
    FF_PARAM_WRITES_FILE = 8u,   /* STRING: the path of a file the op writes. `fieldflow check`
                                    refuses two writers of one file, and a write to a file the
                                    graph reads unless the writing node says `overwrite: true`. */
} ff_param_flags;

typedef struct ff_param_decl {
    uint32_t struct_size;
    const char* name;
    ff_param_kind kind;
    /* Default as YAML text ("3", "0.5", "true", "auto", "[1, 10]"). NULL: the param is required. */
    const char* default_value;
    /* Inclusive range for INT, FLOAT and INT_LIST. Ignored when min > max. */
    double min;
    double max;
    const char* choices; /* ENUM only: "nearest|linear|area" */
    const char* doc;
    /* ABI 1.2: ff_param_flags. Read only when struct_size covers it and the plugin's abi_minor is
     * 2 or more; otherwise FF_PARAM_IN_KEY. */
    uint32_t flags;
    /* ABI 1.3: when the param has an effect, as conditions on ENUM or BOOL params of the same op
     * declared before it, all of which must hold: "model=grid", "model=grid|siren",
     * "model=grid, encoding=hash". NULL or "" (and any plugin older than 1.3): always. A param
     * that does not apply is left out of the node's cache key, a graph that sets one to other than
     * its default gets a warning at its FILE:LINE:COL, and `fieldflow nodes OP` lists params by
     * when they apply. The host checks the text when it loads the plugin. */
    const char* applies_when;
} ff_param_decl;

typedef struct ff_port_decl {
    uint32_t struct_size;
    const char* name;
    const char* type; /* FF_TYPE_* or a plugin-defined type */
    const char* doc;
    int32_t optional; /* inputs only: may be left unconnected */
} ff_port_decl;

/* Flags on an op, telling the host how it may cache the op's results. */
typedef enum ff_op_flags {
    FF_OP_PURE = 0,             /* outputs depend only on params and inputs: cached in memory */
    FF_OP_CACHE_ON_DISK = 1u,   /* pure and expensive (training): results persist in the disk cache */
    FF_OP_READS_OUTSIDE = 2u,   /* reads the outside world (files): always runs; downstream keys use
                                   a hash of its outputs' contents, so an unchanged file still hits */
    FF_OP_WRITES_OUTSIDE = 4u,  /* writes files: always runs, never cached */
} ff_op_flags;

typedef struct ff_host_api ff_host_api;
typedef struct ff_context ff_context; /* one execution of one node; opaque */

/* Run the op. Read inputs and params through `host`, write outputs with host->output_*.
 * On failure call host->set_error and return FF_ERROR. Called on a worker thread; different nodes
 * of the same op may run at the same time. */
typedef ff_status (*ff_execute_fn)(const ff_host_api* host, ff_context* ctx, void* op_user);

/* Optional check of params before anything runs (for constraints the decl cannot express).
 * Return FF_OK, or call host->set_error naming the param (host->set_error_param) and return
 * FF_ERROR. Inputs are not available here. */
typedef ff_status (*ff_validate_fn)(const ff_host_api* host, ff_context* ctx, void* op_user);

/* ABI 1.4, optional: setup that needs the params but no inputs (opening a compute device,
 * building kernels), started early so that it overlaps the nodes upstream. In a run (not in
 * `fieldflow check` or a dry run) the host calls it once for each node of the op, after the
 * graph has passed validation, on a thread of its own, in the graph's order; a node's execute may
 * start before its prepare has run, while it runs, or after, so prepare only warms what execute
 * would otherwise do itself (a shared, thread-safe cache). Params, device() and node_name() are
 * available; inputs, outputs, progress and state_dir are not. Its status is not the node's: a
 * failure is for execute to meet and report. The host waits for every prepare to return before
 * the run ends (a cached run that never executes the node still waits for it). */
typedef ff_status (*ff_prepare_fn)(const ff_host_api* host, ff_context* ctx, void* op_user);

/* ABI 1.4, optional, prepare's pair: the host calls it once for each node whose prepare it
 * called, after that node has settled (ran, came from a cache, failed, was skipped or was
 * cancelled; at the latest when the run ends), on the prepares' thread, after every prepare of
 * the run: to let go of what prepare took for the node, so that a resource the rest of the graph
 * no longer needs (an open compute device) is released while the rest runs rather than when the
 * process exits. Params, device() and node_name() are available as in prepare. */
typedef void (*ff_release_fn)(const ff_host_api* host, ff_context* ctx, void* op_user);

typedef struct ff_op_decl {
    uint32_t struct_size;
    const char* name;     /* "ReadImage": CamelCase, unique across all loaded plugins */
    const char* category; /* "io", "image", "metrics", "neural", ... */
    const char* doc;      /* one paragraph */
    uint32_t flags;       /* ff_op_flags */
    uint32_t version;     /* bump when results change for the same params: part of the cache key */
    const ff_port_decl* inputs;
    uint32_t input_count;
    const ff_port_decl* outputs;
    uint32_t output_count;
    const ff_param_decl* params;
    uint32_t param_count;
    ff_execute_fn execute;
    ff_validate_fn validate; /* may be NULL */
    void* user;
    /* ABI 1.4: read only when struct_size covers it and the plugin's abi_minor is 4 or more. */
    ff_prepare_fn prepare; /* may be NULL */
    ff_release_fn release; /* may be NULL; called only for nodes whose prepare was called */
} ff_op_decl;

typedef struct ff_plugin_info {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    const char* name;    /* "core" */
    const char* version; /* "1.0.0" */
    const ff_op_decl* const* ops;
    uint32_t op_count;
} ff_plugin_info;

/* The one exported symbol. Must be cheap and side-effect free; may be called more than once. */
typedef const ff_plugin_info* (*ff_plugin_entry_fn)(void);

/* ---- Host services ------------------------------------------------------------------------ */

typedef enum ff_log_level {
    FF_LOG_DEBUG = 0,
    FF_LOG_INFO = 1,
    FF_LOG_WARNING = 2,
} ff_log_level;

struct ff_host_api {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;

    /* Inputs. NULL when an optional input is unconnected. The returned pointers stay valid until
     * execute returns. */
    int32_t (*input_image)(ff_context* ctx, const char* port, ff_image* out); /* 1 if connected */
    const void* (*input_blob)(ff_context* ctx, const char* port, size_t* size); /* NULL: unconnected */

    /* Params, already validated against their decl. Return 1 on success, 0 if no such param or the
     * kind differs (a programming error in the plugin, reported by the host). Strings stay valid
     * until execute returns. */
    int32_t (*param_int)(ff_context* ctx, const char* name, int64_t* out);
    int32_t (*param_float)(ff_context* ctx, const char* name, double* out);
    int32_t (*param_bool)(ff_context* ctx, const char* name, int32_t* out);
    int32_t (*param_string)(ff_context* ctx, const char* name, const char** out); /* STRING, ENUM */
    /* INT_LIST / STRING_LIST: returns the element count (or -1); copies up to `capacity` items. */
    int64_t (*param_int_list)(ff_context* ctx, const char* name, int64_t* out, size_t capacity);
    int64_t (*param_string_list)(ff_context* ctx, const char* name, const char** out, size_t capacity);

    /* Outputs: the host allocates, the op fills. Each output port must be written exactly once. */
    float* (*output_image)(ff_context* ctx, const char* port, uint32_t width, uint32_t height,
                           uint32_t channels);
    void* (*output_blob)(ff_context* ctx, const char* port, size_t size);

    /* Errors: the message says what is wrong; the host adds the node name and, for params, the
     * graph file position of the param. */
    void (*set_error)(ff_context* ctx, const char* message);
    void (*set_error_param)(ff_context* ctx, const char* param, const char* message);

    /* Reporting. progress: `done` of `total` units (e.g. training steps); `detail` is a short
     * status ("loss 0.0123"). The host draws one bar per running node on a terminal, plain lines
     * otherwise. log lines go to the run log, prefixed with the node name; in validate, a line is
     * a note (a warning at FF_LOG_WARNING) that `fieldflow check` and dry runs show at the node's
     * position: what the node's work will cost, for instance. */
    void (*log)(ff_context* ctx, ff_log_level level, const char* message);
    void (*progress)(ff_context* ctx, uint64_t done, uint64_t total, const char* detail);

    /* Nonzero once the user interrupted the run (SIGINT/SIGTERM) or a sibling failed hard.
     * Long ops poll it and return FF_CANCELLED promptly. */
    int32_t (*cancelled)(ff_context* ctx);

    /* Run-wide settings: the compute device requested on the command line ("auto", "cpu", "0",
     * ...), and the node's name in the graph (for messages and file names). */
    const char* (*device)(ff_context* ctx);
    const char* (*node_name)(ff_context* ctx);

    /* ---- Added in ABI 1.1: check struct_size before calling (see the stability rules). ---- */

    /* A folder private to this node's work, for state that lets an interrupted execution go on
     * where it stopped (training checkpoints). It is named by the node's cache key (op, version,
     * params, inputs) under the host's disk cache, so a later run of the same work finds the same
     * folder, and different work never shares one. Created on the first call; the string stays
     * valid until execute returns. NULL when the run has no disk cache (--no-cache), when the
     * folder cannot be created, and in validate. The host removes the folder once the node has
     * succeeded and its outputs are cached; after a failure or an interrupt it stays for the next
     * run. Write into it atomically (temporary file + rename): the process may be killed at any
     * time. */
    const char* (*state_dir)(ff_context* ctx);

    /* ---- Added in ABI 1.2: check struct_size before calling. ---- */

    /* Says which bits per sample (ff_image.bits: 8, 16, 32; 0 unknown) output image `port` stands
     * for; call it after output_image. Without it an output image takes the largest `bits` of the
     * node's image inputs, so ops that transform an image keep its source's precision. */
    void (*set_output_bits)(ff_context* ctx, const char* port, uint32_t bits);

    /* Reports a side file the op wrote under a FF_PARAM_SIDE_OUTPUT param `param`: `path` is the
     * file written (the param's value itself, or a file inside that folder). Once the node
     * succeeds the host keeps the file's bytes with the cached result, and writes them again
     * under the param's value when a later run takes the result from the cache, so a cached run
     * leaves the same files as one that computed. Call it after the file is complete; reporting
     * one path twice keeps it once. */
    void (*side_file)(ff_context* ctx, const char* param, const char* path);
};

#ifdef __cplusplus
}
#endif

#endif /* FIELDFLOW_PLUGIN_H */
