/* Broken plugins the loader must refuse with a clear error. One source, built four ways:
 *   BAD_ABI_MAJOR   : built for another major ABI version
 *   BAD_ABI_MINOR   : needs a newer minor ABI version than the host
 *   BAD_NO_ENTRY    : exports no `fieldflow_plugin`
 *   BAD_DUPLICATE   : declares an op the test plugin already provides ("Constant") */
#include <fieldflow/plugin.h>

#include <string.h>

static ff_status noop_execute(const ff_host_api* host, ff_context* ctx, void* user) {
    (void)host; (void)ctx; (void)user;
    return FF_OK;
}

static const ff_op_decl op = {sizeof(ff_op_decl), "Constant", "test", "A duplicate.", FF_OP_PURE,
                              1, NULL, 0, NULL, 0, NULL, 0, noop_execute, NULL, NULL, NULL, NULL};
static const ff_op_decl* const ops[] = {&op};

#if defined(BAD_ABI_MAJOR)
#define MAJOR (FF_ABI_MAJOR + 1u)
#define MINOR 0u
#elif defined(BAD_ABI_MINOR)
#define MAJOR FF_ABI_MAJOR
#define MINOR (FF_ABI_MINOR + 1u)
#else
#define MAJOR FF_ABI_MAJOR
#define MINOR FF_ABI_MINOR
#endif

static const ff_plugin_info info = {sizeof(ff_plugin_info), MAJOR, MINOR, "bad", "0.0.1", ops, 1};

#if defined(BAD_NO_ENTRY)
FF_EXPORT const ff_plugin_info* fieldflow_plugin_v2(void) { return &info; }
#else
FF_EXPORT const ff_plugin_info* fieldflow_plugin(void) { return &info; }
#endif
