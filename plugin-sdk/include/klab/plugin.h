/*
 * klab/plugin.h — the klab plugin ABI, version 1.0.
 *
 * A klab plugin is a shared object that exports ONE symbol, klab_plugin_entry, returning a constant
 * descriptor (struct klab_plugin). The descriptor names the experiment, its profiles (the variants
 * being compared, e.g. "baseline" and "fused"), the dtypes it supports, and four required hooks:
 *
 *   setup     allocate tensors through the host and build the plugin's state for one case and dtype
 *   run       enqueue one execution of one profile on the stream the host gives
 *   verify    compute, in float64 on the CPU, what run must have produced; the host compares
 *   teardown  release what setup made
 *
 * The host does the common work: it fills inputs with fresh random values, poisons outputs before
 * verified runs, compares against the float64 reference with a dtype-fitting tolerance, flushes L2,
 * times with CUDA events, keeps the statistics, derives GB/s and TFLOP/s and writes the CSV evidence.
 * A plugin only declares and launches.
 *
 * The words MUST, MUST NOT and MAY are a contract: a plugin that breaks it is refused or its rows are
 * failed or flagged, never silently timed.
 *
 * ---------------------------------------------------------------------------------------------
 * Versioning.
 *   - The descriptor and the host services table start with {abi_major, abi_minor, struct_size}.
 *   - abi_major changes only when an existing field changes meaning; the host refuses a plugin whose
 *     major differs from its own, naming both versions.
 *   - A minor version only APPENDS fields at the end of a struct. Each field below says the minor
 *     version that added it. A reader MUST NOT touch a field that lies beyond the struct_size the
 *     other side declared (use KLAB_HAS_FIELD). So a plugin built against 1.0 keeps loading in a
 *     1.3 host (the host sees a shorter struct and treats the newer optional hooks as absent), and a
 *     1.3 plugin can run in a 1.0 host provided it checks host->struct_size before using newer
 *     services.
 *   - New optional hooks are added this way; new required behaviour never is.
 *
 * Lifecycle, per (case, dtype) — the host guarantees:
 *   entry() once per process; then for each case and dtype the plugin supports:
 *     setup() → [verify() once] → run() many times, for any profile, in any order → teardown().
 *   If setup() returns KLAB_OK the host MUST call teardown() exactly once, whatever happens later.
 *   If setup() fails, teardown() is not called: setup cleans up after itself. Tensors made with
 *   host->tensor() are owned and freed by the host in either case.
 *   Each experiment runs in its own worker process: a crash, a hang or a sticky CUDA error costs only
 *   the case it happened in, and is reported by name.
 * ---------------------------------------------------------------------------------------------
 */
#ifndef KLAB_PLUGIN_H
#define KLAB_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KLAB_ABI_MAJOR 1
#define KLAB_ABI_MINOR 0

/* The one exported symbol. */
#define KLAB_ENTRY_SYMBOL "klab_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define KLAB_EXPORT __attribute__((visibility("default")))
#else
#define KLAB_EXPORT
#endif

/* True when a struct of `type` that declared `size` bytes contains `field`. */
#define KLAB_HAS_FIELD(type, size, field) \
    ((size_t)(size) >= offsetof(type, field) + sizeof(((type *)0)->field))

typedef enum klab_status {
    KLAB_OK = 0,
    KLAB_ERROR = 1,       /* the hook failed; the reason was given through host->error() */
    KLAB_UNSUPPORTED = 2  /* this case cannot run here (shape, dtype, device): a skipped row, not a failure */
} klab_status;

/* Element types. The numbering is part of the ABI. */
typedef enum klab_dtype {
    KLAB_FP32 = 0,
    KLAB_FP16 = 1, /* IEEE binary16 */
    KLAB_BF16 = 2, /* bfloat16 */
    KLAB_DTYPE_COUNT
} klab_dtype;
#define KLAB_DTYPE_BIT(d) (1u << (unsigned)(d))

/* The CUDA stream type without including CUDA headers: identical to cudaStream_t. */
typedef struct CUstream_st *klab_stream;

#define KLAB_MAX_RANK 4

/* A plugin-specific setting from the case's INI section (`param.eps = 1e-5` arrives as key "eps"). */
typedef struct klab_param {
    const char *key;
    const char *value;
} klab_param;

/* One case as the INI describes it, with one dtype chosen. Valid from setup() to teardown(). */
typedef struct klab_case {
    const char *name;             /* the case's name, e.g. "4096x8192" */
    int rank;                     /* number of dims used, 1..KLAB_MAX_RANK */
    int64_t dims[KLAB_MAX_RANK];  /* the shape, outermost first */
    klab_dtype dtype;
    int nparams;
    const klab_param *params;     /* only keys the descriptor's `params` list names */
} klab_case;

/* What a tensor is for; the host treats each role differently. */
typedef enum klab_role {
    KLAB_INPUT = 1,   /* filled with fresh uniform random values in [-1, 1]; checksummed: run MUST NOT change it */
    KLAB_OUTPUT = 2,  /* poisoned (all bits set: NaN in every float dtype) before every verified run,
                         compared against the reference */
    KLAB_SCRATCH = 3  /* poisoned once, never compared: intermediates of an unfused profile */
} klab_role;

/* Conveniences every plugin needs (header-only, not part of the ABI). */

/* The number of elements of the case's shape. */
static inline size_t klab_case_elements(const klab_case *kcase)
{
    size_t n = 1;
    for (int i = 0; i < kcase->rank; i++)
        n *= (size_t)kcase->dims[i];
    return n;
}

/* The value of param.KEY in the case, or NULL when the INI does not set it. */
static inline const char *klab_case_param(const klab_case *kcase, const char *key)
{
    for (int i = 0; i < kcase->nparams; i++)
        if (strcmp(kcase->params[i].key, key) == 0)
            return kcase->params[i].value;
    return NULL;
}

/* Opaque: one per setup(). Pass it back to the host services. */
typedef struct klab_ctx klab_ctx;

/*
 * Services the host offers. Every function is safe to call from setup(), verify() and teardown();
 * only error() and log() are allowed inside run().
 */
typedef struct klab_host {
    uint32_t abi_major, abi_minor, struct_size;

    /* 1.0: a device tensor of `count` elements, owned by the host (freed after teardown). Inputs,
       outputs and scratch as klab_role says. Inputs and outputs are listed to verify() in the order
       they were made. Returns NULL after recording the reason (the plugin then returns KLAB_ERROR). */
    void *(*tensor)(klab_ctx *ctx, const char *name, klab_role role, klab_dtype dtype, size_t count);

    /* 1.0: refill an input made by tensor() with uniform random values in [lo, hi), e.g. strictly
       positive data for a logarithm. */
    klab_status (*fill_uniform)(klab_ctx *ctx, void *tensor, double lo, double hi);

    /* 1.0: record why the hook fails; returns KLAB_ERROR so a hook can `return host->error(...)`. */
    klab_status (*error)(klab_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

    /* 1.0: a line for the run log (stderr), prefixed with the plugin and case. */
    void (*log)(klab_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

    /* 1.0: the device's compute capability as major*10+minor (90 on Hopper). */
    int (*device_cc)(klab_ctx *ctx);
} klab_host;

/* What verify() gets: the inputs exactly as the device saw them, widened to double, and the arrays
   it MUST fill with the expected outputs. Arrays are in the order the tensors were made. */
typedef struct klab_verify_io {
    int n_in;
    const double *const *in;
    const size_t *in_count;
    int n_out;
    double *const *out;
    const size_t *out_count;
} klab_verify_io;

/* The work one run does, for throughput: bytes the ideal kernel must move through device memory
   (each input read once, each output written once) and arithmetic operations. Profiles that move more
   (an unfused baseline) are still charged the ideal bytes: GB/s then shows what fusion buys. */
typedef struct klab_work {
    double bytes;
    double flops;
} klab_work;

typedef struct klab_profile {
    const char *name;    /* [a-z0-9_]+, unique in the plugin */
    const char *summary; /* one line for `klab --list` */
} klab_profile;

typedef struct klab_plugin {
    uint32_t abi_major;   /* MUST be KLAB_ABI_MAJOR */
    uint32_t abi_minor;   /* KLAB_ABI_MINOR of the SDK the plugin was built with */
    uint32_t struct_size; /* MUST be sizeof(klab_plugin) as the plugin was built */

    /* 1.0 */
    const char *name;     /* MUST equal the file's stem: "rmsnorm" for rmsnorm.so */
    const char *version;  /* the plugin's own version, free text */
    const char *summary;  /* one line */
    const klab_profile *profiles; /* at least one; terminated by an entry whose name is NULL. Profiles
                                     are implementations of ONE function (an unfused baseline, a fused
                                     kernel, a vendor library): verify() gives one reference for all of
                                     them, and speedups compare like with like. */
    const char *baseline; /* the profile speedups are measured against, or NULL */
    uint32_t dtypes;      /* KLAB_DTYPE_BIT() of each dtype supported */
    int min_cc;           /* lowest compute capability (major*10+minor) the kernels run on; 0: any.
                             On an older device every case is a skipped row saying so. */
    const char *const *params; /* NULL-terminated names the INI may set as param.NAME, or NULL */

    /* Required. setup: make tensors with host->tensor(), keep ctx and host in *state for later.
       MAY return KLAB_UNSUPPORTED for a case it cannot do (the row says skipped, with the reason given
       through host->error()). */
    klab_status (*setup)(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state);

    /* Required. Enqueue one execution of profiles[profile] on `stream`, asynchronously.
       MUST enqueue all device work on `stream`, or on streams it joins back into `stream` with events
       before returning (the fork-join pattern CUDA Graph capture accepts). Work left on the legacy
       default stream, on a private stream or on a library handle bound to another stream escapes the
       timer: the host detects it (a device-synchronised globaltimer span against the event time) and
       flags the row instead of reporting a time.
       MAY return KLAB_UNSUPPORTED (with the reason through host->error()) when this profile cannot
       do this case, e.g. a vendor call that exists for one op only: the row is skipped, not failed.
       MUST NOT synchronise, allocate or free memory, or change its inputs: the host may capture run()
       into a CUDA Graph (--graph) and checksums inputs after timing.
       SHOULD check each launch (KLAB_LAUNCHED in klab/cuda.h). */
    klab_status (*run)(void *state, int profile, klab_stream stream);

    /* Required. Fill io->out with the float64 result of the case for io->in. Pure CPU code: it is
       also what the lab's CPU tests check against hand-computed values. */
    klab_status (*verify)(void *state, const klab_case *kcase, const klab_verify_io *io);

    /* Required. Release what setup made (not the host's tensors). */
    void (*teardown)(void *state);

    /* Optional (MAY be NULL). The ideal bytes and flops of one run (the same for every profile: they
       compute the same function). NULL: bytes are the sum of the input and output tensors, flops 0.
       A pure function of the case: `klab --validate` calls it too, without setup and without a GPU. */
    void (*work)(const klab_case *kcase, klab_work *work);

    /* Optional (MAY be NULL). Relative L2 error allowed for this case, or 0 for the host's default for
       the dtype (fp32 1e-5, fp16 2e-3, bf16 1.6e-2). */
    double (*tolerance)(const klab_case *kcase);
} klab_plugin;

/* The entry point every plugin exports with C linkage:
 *
 *   KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);
 *
 * It MAY return NULL to decline a host it cannot work with; it MUST NOT touch the GPU. The descriptor
 * and everything it points to MUST stay valid until the plugin is unloaded. */
typedef const klab_plugin *(*klab_entry_fn)(uint32_t host_abi_major, uint32_t host_abi_minor);

/* The usual entry, in one line after the descriptor: KLAB_PLUGIN_ENTRY(descriptor) defines
   klab_plugin_entry with C linkage, giving the descriptor to a host of the same ABI major and
   declining (NULL) any other. */
#ifdef __cplusplus
#define KLAB_EXTERN_C extern "C"
#else
#define KLAB_EXTERN_C
#endif
#define KLAB_PLUGIN_ENTRY(descriptor)                                                                   \
    KLAB_EXTERN_C KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major,             \
                                                                   uint32_t host_abi_minor)             \
    {                                                                                                   \
        (void)host_abi_minor;                                                                           \
        return host_abi_major == KLAB_ABI_MAJOR ? &(descriptor) : NULL;                                 \
    }

#ifdef __cplusplus
}
#endif

#endif /* KLAB_PLUGIN_H */
