/*
 * klab/plugin.h — the klab plugin ABI, version 2.1.
 *
 * A klab plugin is a shared object that exports ONE symbol, klab_plugin_entry, returning a constant
 * descriptor (struct klab_plugin). The descriptor names the experiment, its profiles (the variants
 * being compared, e.g. "baseline" and "fused"), the dtypes it supports, and four required hooks:
 *
 *   setup     allocate tensors through the host and build the plugin's state for one case and dtype
 *   run       enqueue one execution of one profile on the stream, with the tensors, the host gives
 *   verify    compute, in float64 on the CPU, what run must have produced; the host compares
 *   teardown  release what setup made
 *
 * Since 2.1, run_host and verify_host may stand in for run and verify: the same hooks, given the
 * case's context and the host services as arguments, so a plugin's state need not keep them;
 * check_param lets `klab --validate` refuse a parameter value the plugin cannot use.
 *
 * Headers beside this one (header-only, not ABI): klab/cuda.h (KLAB_CUDA, KLAB_LAUNCHED, dtype
 * dispatch for CUDA C++), klab/convert.h (fp16, bf16, fp8 e4m3/e5m2 to and from float on the host).
 * A plugin's verify() can be tried without a GPU through kb_verify_cpu (core/bench/klab_bench.h,
 * libklab_bench.so of klab's build tree).
 *
 * The host does the common work: it fills inputs with fresh random values (or the plugin's own data),
 * poisons outputs, compares against the float64 reference with a dtype-fitting tolerance, guards every
 * tensor with red zones, flushes L2, times with CUDA events, keeps the statistics and their intervals,
 * derives GB/s and TFLOP/s, tunes launch configurations and writes the CSV evidence. A plugin only
 * declares and launches.
 *
 * The words MUST, MUST NOT, SHOULD and MAY are a contract: a plugin that breaks it is refused or its
 * rows are failed or flagged, never silently timed.
 *
 * ---------------------------------------------------------------------------------------------
 * Versioning.
 *   - Every struct that crosses the boundary and may grow starts with its size:
 *       klab_plugin, klab_host           {abi_major, abi_minor, struct_size}
 *       klab_case, klab_launch, klab_verify_io, klab_work
 *                                        {struct_size}, set by the side that fills the struct
 *       klab_profile                     an array: its stride is the descriptor's profile_size
 *     klab_param and klab_dim are key/value pairs and never grow.
 *   - abi_major changes only when an existing field changes meaning; the host refuses a plugin whose
 *     major differs from its own, naming both versions ("built for plugin ABI 1.0; this klab speaks
 *     2.0").
 *   - A minor version only APPENDS fields at the end of a struct. Each field below says the version
 *     that added it. A reader MUST NOT touch a field that lies wholly or partly beyond the size the
 *     other side declared (KLAB_HAS_FIELD): the host treats such a hook as absent, and a plugin checks
 *     KLAB_HAS_FIELD before reading a field newer than 2.0 from a host struct. So a 2.0 plugin loads in
 *     a 2.3 host, and a 2.3 plugin runs in a 2.0 host when it checks sizes before using newer fields.
 *   - New optional hooks and fields are added this way; new required behaviour never is.
 *   - Enumerations (dtypes, roles, flags) only gain values. A dtype bit the host does not know is
 *     ignored, not a refusal; a flag bit it does not know likewise.
 *
 * Lifecycle, per (case, dtype) — the host guarantees:
 *   entry() once per process (it MAY be called more than once, with other versions, to learn which
 *   ABI an old plugin was built for: it MUST stay a pure function); then for each case and dtype:
 *     setup() → verify() one or more times → run() many times, for any profile, any configuration
 *     of its tuning space, in any order → teardown().
 *   verify() is called once per verified run when the plugin asked for sampled verification (fresh
 *   element indices each time), else once.
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

#ifdef __cplusplus
extern "C" {
#endif

#define KLAB_ABI_MAJOR 2
#define KLAB_ABI_MINOR 1

/* The one exported symbol. */
#define KLAB_ENTRY_SYMBOL "klab_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define KLAB_EXPORT __attribute__((visibility("default")))
#define KLAB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define KLAB_EXPORT
#define KLAB_PRINTF(f, a)
#endif

/* True when a struct of `type` whose declared size is `size` wholly contains `field`. */
#define KLAB_HAS_FIELD(type, size, field) \
    ((size_t)(size) >= offsetof(type, field) + sizeof(((type *)0)->field))

typedef enum klab_status {
    KLAB_OK = 0,
    KLAB_ERROR = 1,       /* the hook failed; the reason was given through host->error() */
    KLAB_UNSUPPORTED = 2  /* this case, profile or configuration cannot run here (shape, dtype, device,
                             an invalid tuning configuration): a skipped row, not a failure */
} klab_status;

/* Element types. The numbering is part of the ABI; values are only appended. */
typedef enum klab_dtype {
    KLAB_FP32 = 0,
    KLAB_FP16 = 1,     /* IEEE binary16 */
    KLAB_BF16 = 2,     /* bfloat16 */
    KLAB_FP8_E4M3 = 3, /* 2.0: OCP fp8 e4m3 (finite only, max 448): __nv_fp8_e4m3 */
    KLAB_FP8_E5M2 = 4, /* 2.0: OCP fp8 e5m2 (max 57344): __nv_fp8_e5m2 */
    KLAB_INT32 = 5,    /* 2.0: lengths, positions, token ids */
    KLAB_INT64 = 6,    /* 2.0: offsets and indices past 2^31 (verify() sees them as double: exact
                          below 2^53; io->in_raw holds the exact bits) */
    KLAB_DTYPE_COUNT
} klab_dtype;
#define KLAB_DTYPE_BIT(d) (1u << (unsigned)(d))
#define KLAB_FLOAT_DTYPES \
    (KLAB_DTYPE_BIT(KLAB_FP32) | KLAB_DTYPE_BIT(KLAB_FP16) | KLAB_DTYPE_BIT(KLAB_BF16))

/* Bytes of one element; 0 for a dtype this header does not know. */
static inline size_t klab_dtype_size(klab_dtype d)
{
    switch (d) {
    case KLAB_FP32: case KLAB_INT32: return 4;
    case KLAB_FP16: case KLAB_BF16: return 2;
    case KLAB_FP8_E4M3: case KLAB_FP8_E5M2: return 1;
    case KLAB_INT64: return 8;
    default: return 0;
    }
}

/* The CUDA stream type without including CUDA headers: identical to cudaStream_t. */
typedef struct CUstream_st *klab_stream;

#define KLAB_MAX_RANK 4

/* A plugin-specific setting from the case's INI section (`param.eps = 1e-5` arrives as key "eps").
   Never grows. */
typedef struct klab_param {
    const char *key;
    const char *value;
} klab_param;

/* A named dimension from the case's INI section (`dim.k = 4096` arrives as name "k"): the sizes of a
   problem that is not one tensor (M, N, K of a GEMM; layers, heads, head_dim of a decode step). Only
   names the descriptor's `dims` list declares reach the plugin. Never grows. */
typedef struct klab_dim {
    const char *name;
    int64_t value;
} klab_dim;

/* One case as the INI describes it, with one dtype chosen. Filled by the host; valid from setup() to
   teardown(). */
typedef struct klab_case {
    uint32_t struct_size;         /* 2.0: sizeof(klab_case) as the host was built */
    const char *name;             /* the case's name, e.g. "4096x8192" */
    int rank;                     /* dims used, 0..KLAB_MAX_RANK (0: the case has named dims only) */
    int64_t dims[KLAB_MAX_RANK];  /* the shape, outermost first */
    klab_dtype dtype;
    int nparams;
    const klab_param *params;     /* only keys the descriptor's `params` list names */
    int nnamed;                   /* 2.0 */
    const klab_dim *named;        /* 2.0: only names the descriptor's `dims` list names */
    int64_t steps;                /* 2.0: step plugins: run() steps in one verified sequence (the INI's
                                     `steps`, else the descriptor's default_steps); others: 1 */
} klab_case;

/* Conveniences every plugin needs (header-only, not part of the ABI). */

/* The number of elements of the case's shape (1 for rank 0). */
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

/* The value of dim.NAME in the case, or `dflt` when the INI does not set it. */
static inline int64_t klab_case_dim(const klab_case *kcase, const char *name, int64_t dflt)
{
    if (!KLAB_HAS_FIELD(klab_case, kcase->struct_size, named))
        return dflt;
    for (int i = 0; i < kcase->nnamed; i++)
        if (strcmp(kcase->named[i].name, name) == 0)
            return kcase->named[i].value;
    return dflt;
}

/* What a tensor is for; the host treats each role differently. */
typedef enum klab_role {
    KLAB_INPUT = 1,   /* filled with fresh uniform random values in [-1, 1) (integers: 0 or 1), or with
                         what the plugin gives fill_uniform/fill_data; checksummed after verified and
                         timed runs: run MUST NOT change it */
    KLAB_OUTPUT = 2,  /* overwritten with an unpredictable pattern (NaNs and random finite values) before
                         EVERY run the host times or verifies: a run MUST write every element; compared
                         against the reference after verified runs */
    KLAB_SCRATCH = 3, /* poisoned once, never compared: intermediates of an unfused profile */
    KLAB_STATE = 4    /* 2.0: read and written by run() (a KV cache, a step counter): filled like an
                         input, restored to those contents before every verified sequence and whenever a
                         step plugin's sequence starts again; given to verify() both as an input (its
                         initial contents) and as an output to fill (its contents after io->steps runs) */
} klab_role;

/* Opaque: one per setup(). Pass it back to the host services. */
typedef struct klab_ctx klab_ctx;

/* 2.1: one chunk of a parallel_for: the elements [begin, end) of its range. Chunk c is
   [c * grain, min(n, (c + 1) * grain)), so c = begin / grain. */
typedef void (*klab_chunk_fn)(void *arg, size_t begin, size_t end);

/* 2.1: the device a case runs on, as host->device() reports it, so a plugin sizes grids and
   shared memory without querying CUDA itself. The caller sets struct_size to sizeof(klab_device) as
   it was built (klab_device_of() does); the host fills the fields that lie wholly inside it. */
typedef struct klab_device {
    uint32_t struct_size;
    int ordinal;               /* the CUDA device ordinal the case runs on */
    int cc;                    /* compute capability, major*10+minor */
    int sm_count;              /* streaming multiprocessors */
    int max_threads_per_sm;
    int max_threads_per_block;
    int regs_per_sm;           /* 32-bit registers */
    int clock_khz;             /* peak SM clock */
    int mem_clock_khz;         /* peak memory clock */
    int mem_bus_bits;
    int cluster_launch;        /* 1: thread block clusters can be launched (sm_90 and later) */
    size_t smem_per_block;     /* shared memory a block gets without opting in */
    size_t smem_per_block_optin; /* the most a block can opt in to (cudaFuncSetAttribute) */
    size_t smem_per_sm;
    size_t l2_bytes;
    size_t persisting_l2_max;  /* the most of L2 an access policy window may keep */
} klab_device;

/*
 * Services the host offers. Every function is safe to call from setup(), verify() and teardown();
 * only error() and log() are allowed inside run().
 */
typedef struct klab_host {
    uint32_t abi_major, abi_minor, struct_size;

    /* 1.0: a device tensor of `count` elements, owned by the host (freed after teardown), with red
       zones on both sides that the host checks after every verified run (an overrun fails the row,
       naming the tensor and the side). Roles as klab_role says. Its index, the order of tensor()
       calls from 0, is where run() finds it in launch->tensors[]. Inputs, states and outputs reach
       verify() in the order they were made. Returns NULL after recording the reason (the plugin then
       returns KLAB_ERROR). */
    void *(*tensor)(klab_ctx *ctx, const char *name, klab_role role, klab_dtype dtype, size_t count);

    /* 1.0: refill an input or state made by tensor() with uniform random values in [lo, hi) from the
       run's seed, e.g. strictly positive data for a logarithm; for an integer dtype, integers in
       [lo, hi). */
    klab_status (*fill_uniform)(klab_ctx *ctx, void *tensor, double lo, double hi);

    /* 1.0: record why the hook fails; returns KLAB_ERROR so a hook can `return host->error(...)`. */
    klab_status (*error)(klab_ctx *ctx, const char *fmt, ...) KLAB_PRINTF(2, 3);

    /* 1.0: a line for the run log (stderr), prefixed with the plugin and case. */
    void (*log)(klab_ctx *ctx, const char *fmt, ...) KLAB_PRINTF(2, 3);

    /* 1.0: the device's compute capability as major*10+minor (90 on Hopper). */
    int (*device_cc)(klab_ctx *ctx);

    /* 2.0: the stream the host fills tensors on and runs this case on. Device work a plugin does in
       setup() (building a table, capturing its own graph) MUST go on it, so it is ordered after the
       host's fills. */
    klab_stream (*stream)(klab_ctx *ctx);

    /* 2.0: a 64-bit seed for data the plugin generates itself (sequence lengths, positions, token
       ids): fresh every run unless the run's seed is fixed (--seed), different per case, dtype and
       plugin. Use it, never time() or a constant, so inputs are reproducible and fresh alike. */
    uint64_t (*seed)(klab_ctx *ctx);

    /* 2.0: set an input or state tensor's contents from `data`: `count` elements of the tensor's dtype
       in host memory, as the device will see them. The host keeps a copy: checksums, restores and
       refills use these values, never random ones. */
    klab_status (*fill_data)(klab_ctx *ctx, void *tensor, const void *data, size_t count);

    /* 2.0: verify `per_output` host-chosen elements of each output instead of all of them (a GEMM
       whose float64 reference would take minutes). Fresh indices every verified run, so an element
       wrong in every run is found across runs; the row says how many were compared. Call from
       setup(); 0 restores full verification. */
    klab_status (*sample_outputs)(klab_ctx *ctx, size_t per_output);

    /* 2.1: runs fn(arg, begin, end) over [0, n) cut into ceil(n / grain) chunks (grain 0 counts as 1),
       on the host's CPU threads (KLAB_THREADS, else one a CPU), and returns when every chunk has run:
       for verify()'s float64 loops over large tensors, one row, one output element or one head a
       unit of work. The chunks depend on n and grain alone, never on the thread count, so a plugin
       that writes each chunk's results to their own elements, or keeps one partial a chunk and
       combines the partials in chunk order after the call, gets the same bits with any number of
       threads; choose grain from the case, never from the machine. Chunks run concurrently and in
       any order: fn MUST be plain CPU code that writes only its chunk's own memory, and MUST NOT call
       CUDA or any host service (error() included: record a failure in arg, report it after). A
       parallel_for inside a chunk runs inline. A plugin checks KLAB_HAS_FIELD(klab_host,
       host->struct_size, parallel_for) before calling it, and loops over the chunks itself in a 2.0
       host: klab_parallel_for() below does both. */
    void (*parallel_for)(klab_ctx *ctx, size_t n, size_t grain, klab_chunk_fn fn, void *arg);

    /* 2.1: the device this case runs on (klab_device), as CUDA reports it; KLAB_ERROR with the
       reason when CUDA cannot say. From setup() and verify(); klab_device_of() below checks that the
       host has it. */
    klab_status (*device)(klab_ctx *ctx, klab_device *out);
} klab_host;

/* host->device where the host has it (2.1); KLAB_UNSUPPORTED in a 2.0 host, after recording why. */
static inline klab_status klab_device_of(const klab_host *host, klab_ctx *ctx, klab_device *out)
{
    out->struct_size = (uint32_t)sizeof *out;
    if (KLAB_HAS_FIELD(klab_host, host->struct_size, device) && host->device)
        return host->device(ctx, out);
    host->error(ctx, "this klab has no device service (plugin ABI %u.%u; it needs 2.1)", host->abi_major,
                host->abi_minor);
    return KLAB_UNSUPPORTED;
}

/* host->parallel_for where the host has it (2.1), else the same chunks in order in this thread; host
   NULL (a reference called from a test) runs them here too. Header-only, not part of the ABI. */
static inline void klab_parallel_for(const klab_host *host, klab_ctx *ctx, size_t n, size_t grain,
                                     klab_chunk_fn fn, void *arg)
{
    if (host && KLAB_HAS_FIELD(klab_host, host->struct_size, parallel_for) && host->parallel_for) {
        host->parallel_for(ctx, n, grain, fn, arg);
        return;
    }
    if (grain == 0)
        grain = 1;
    for (size_t begin = 0; begin < n; begin += grain)
        fn(arg, begin, n - begin < grain ? n : begin + grain);
}

/* What run() gets. Filled by the host. */
typedef struct klab_launch {
    uint32_t struct_size;     /* 2.0 */
    int profile;              /* index into the descriptor's profiles */
    int config;               /* index into the profile's tuning space (klab_profile.config), or -1:
                                 the plugin's own choice for this case */
    klab_stream stream;       /* MUST enqueue all device work here (see run()) */
    int ntensors;
    void *const *tensors;     /* device pointers of this run's tensors, indexed as tensor() made them.
                                 The host may hand different copies of the same tensors to different
                                 runs (batched cold timing rotates copies so no run finds its data in
                                 L2): run() MUST use these, not pointers kept from setup(), unless its
                                 profile says KLAB_PROFILE_FIXED_TENSORS. */
    int64_t step;             /* step plugins: 0 .. steps-1, the position of this run in its sequence
                                 since the states were last restored; others: 0 */
} klab_launch;

/* What verify() gets: the inputs (and states' initial contents) exactly as the device saw them,
   widened to double, and the arrays it MUST fill with the expected outputs (and states' final
   contents). Arrays are in the order the tensors were made. Filled by the host. */
typedef struct klab_verify_io {
    uint32_t struct_size;      /* 2.0 */
    int n_in;
    const double *const *in;
    const size_t *in_count;
    int n_out;
    double *const *out;
    const size_t *out_count;   /* elements of out[o]: the tensor's count, or nsample[o] when sampled */
    const void *const *in_raw; /* 2.0: the same inputs in their own dtype (exact integers) */
    const klab_dtype *in_dtype;/* 2.0 */
    const size_t *const *sample; /* 2.0: NULL, or per output NULL (all elements) or ascending element
                                    indices: out[o][j] MUST then hold the expected value of element
                                    sample[o][j], and only those are compared */
    int64_t steps;             /* 2.0: the outputs are those after this many runs from the initial
                                  states (step plugins: the case's steps; others: 1) */
} klab_verify_io;

/* The work one run does, for throughput: bytes the ideal kernel must move through device memory
   (each input read once, each output written once) and arithmetic operations. Profiles that move more
   (an unfused baseline) are still charged the ideal bytes: GB/s then shows what fusion buys. The host
   zero-fills it and sets struct_size before calling work(). */
typedef struct klab_work {
    uint32_t struct_size; /* 2.0 */
    double bytes;
    double flops;
} klab_work;

/* Profile flags (2.0). */
#define KLAB_PROFILE_OWNS_GRAPH 0x1u     /* run() launches CUDA graphs the plugin instantiated: the
                                            host does not capture run() into a graph of its own; it
                                            batches by queueing runs back to back instead */
#define KLAB_PROFILE_FIXED_TENSORS 0x2u  /* run() uses the tensors from setup (e.g. baked into its own
                                            graph): the host does not rotate copies for it, and says
                                            so in cold batched rows */

/* One implementation of the plugin's function. An array in the descriptor, ended by name == NULL;
   its stride is the descriptor's profile_size, so the struct can grow. */
typedef struct klab_profile {
    const char *name;    /* [a-z0-9_]+, unique in the plugin */
    const char *summary; /* one line for `klab --list` */
    uint32_t flags;      /* 2.0: KLAB_PROFILE_* */
    const int *archs;    /* 2.0: the exact compute capabilities (major*10+minor) this profile has
                            machine code for, ended by 0 (sm_90a code: {90, 0}); NULL: the plugin's
                            `archs`. On any other device its rows are skipped, saying so. */
    /* 2.0, MAY be NULL: the profile's tuning space for this case. config(kcase, i) for i = 0, 1, ...
       describes configuration i as "key=value,key=value" ([a-z0-9_=,.] only), NULL past the last.
       config(kcase, -1) describes the plugin's own choice for the case (what run() does with
       launch->config == -1), so every row can name its configuration. The string need stay valid
       only until the next call of config (the host copies what it keeps). A pure function of the case:
       `klab --tune --validate` enumerates without a GPU. run() MAY return KLAB_UNSUPPORTED for a
       configuration that cannot do this case (saying why), before launching anything. */
    const char *(*config)(const klab_case *kcase, int index);
} klab_profile;

/* Plugin flags (2.0). */
#define KLAB_PLUGIN_STEPS 0x1u /* run() is one step of a sequence (a decode step over a growing KV
                                  cache): the host verifies the states and outputs after case->steps
                                  runs, and times single steps as a distribution (p50/p95/p99/max) */

typedef struct klab_plugin {
    uint32_t abi_major;    /* MUST be KLAB_ABI_MAJOR */
    uint32_t abi_minor;    /* KLAB_ABI_MINOR of the SDK the plugin was built with */
    uint32_t struct_size;  /* MUST be sizeof(klab_plugin) as the plugin was built */
    uint32_t profile_size; /* 2.0: MUST be sizeof(klab_profile) as the plugin was built */

    const char *name;      /* MUST equal the file's stem: "rmsnorm" for rmsnorm.so */
    const char *version;   /* the plugin's own version, free text; part of the tuning cache's key */
    const char *summary;   /* one line */
    const klab_profile *profiles; /* at least one; terminated by an entry whose name is NULL. Profiles
                                     are implementations of ONE function (an unfused baseline, a fused
                                     kernel, a vendor library): verify() gives one reference for all of
                                     them, and speedups compare like with like. */
    const char *baseline;  /* the profile speedups are measured against, or NULL */
    uint32_t dtypes;       /* KLAB_DTYPE_BIT() of each dtype supported */
    int min_cc;            /* lowest compute capability (major*10+minor) the kernels run on; 0: any.
                              On an older device every case is a skipped row saying so. */
    const int *archs;      /* 2.0: exact compute capabilities with machine code, ended by 0; NULL: any
                              device >= min_cc (code that JIT-compiles from PTX) */
    const char *const *params; /* NULL-terminated names the INI may set as param.NAME, or NULL */
    const char *const *dims;   /* 2.0: NULL-terminated names the INI may set as dim.NAME, or NULL */
    uint32_t flags;        /* 2.0: KLAB_PLUGIN_* */
    int64_t default_steps; /* 2.0: step plugins: runs in a verified sequence when the INI sets none */

    /* Required. setup: make tensors with host->tensor(), keep ctx and host in *state for later.
       Device work goes on host->stream(ctx). MAY return KLAB_UNSUPPORTED for a case it cannot do (the
       row says skipped, with the reason given through host->error()); a case that is malformed for
       the plugin (an odd head dimension, a cache shorter than the sequence) is KLAB_ERROR naming the
       case's value and the limit. */
    klab_status (*setup)(klab_ctx *ctx, const klab_host *host, const klab_case *kcase, void **state);

    /* Required (or run_host, 2.1). Enqueue one execution of launch->profile with launch->config on
       launch->stream, asynchronously, on launch->tensors.
       MUST enqueue all device work on that stream, or on streams it joins back into it with events
       before returning (the fork-join pattern CUDA Graph capture accepts). Work left on the legacy
       default stream, on a private stream or on a library handle bound to another stream escapes the
       timer: the host detects it and flags the row instead of reporting a time.
       MAY return KLAB_UNSUPPORTED (with the reason through host->error()) when this profile or
       configuration cannot do this case: the row is skipped, not failed.
       MUST NOT synchronise, allocate or free memory, or change its inputs; MUST write every element
       of every output on every run (outputs are poisoned before each). The host may capture run()
       into a CUDA Graph (batched timing), several times with different tensors.
       SHOULD check each launch (KLAB_LAUNCHED in klab/cuda.h). */
    klab_status (*run)(void *state, const klab_launch *launch);

    /* Required (or verify_host, 2.1). Fill io->out with the float64 result of the case for io->in
       (only the sampled elements when io->sample says so). Pure CPU code: it is also what the lab's
       CPU tests check against hand-computed values, and what kb_verify_cpu tries without a GPU. */
    klab_status (*verify)(void *state, const klab_case *kcase, const klab_verify_io *io);

    /* Required. Release what setup made (not the host's tensors). */
    void (*teardown)(void *state);

    /* Optional (MAY be NULL). The ideal bytes and flops of one run (the same for every profile: they
       compute the same function). NULL: bytes are the sum of the input, state and output tensors,
       flops 0. A pure function of the case: `klab --validate` calls it too, without setup and
       without a GPU. */
    void (*work)(const klab_case *kcase, klab_work *work);

    /* Optional (MAY be NULL). Relative L2 error allowed for this case, or 0 for the host's default for
       the output's dtype (fp32 1e-5, fp16 2e-3, bf16 1.6e-2, fp8 e4m3 6.25e-2, fp8 e5m2 1.25e-1;
       integer outputs must match exactly). */
    double (*tolerance)(const klab_case *kcase);

    /* 2.1, optional: run() with the context and host services of the case's setup, so state need not
       keep them. When set, the host calls it instead of run, which MAY then be NULL (such a plugin is
       refused by a 2.0 host, which requires run). The same contract as run; of the services only
       error() and log() are allowed in it. */
    klab_status (*run_host)(void *state, klab_ctx *ctx, const klab_host *host, const klab_launch *launch);

    /* 2.1, optional: verify() with the context and host services (parallel_for, error), used instead
       of verify when set; verify MAY then be NULL. The same contract as verify. */
    klab_status (*verify_host)(void *state, klab_ctx *ctx, const klab_host *host, const klab_case *kcase,
                               const klab_verify_io *io);

    /* 2.1, optional: whether the plugin accepts `value` for param.KEY (KEY one of `params`): NULL when
       it does, else one line saying what it must be ("a number in (0, 60000]"). A pure function of
       its arguments, called without a GPU for every param.* a case sets: `klab --validate` and a run
       refuse the INI naming file:line:param.KEY, the value and that line, before any setup. */
    const char *(*check_param)(const char *key, const char *value);
} klab_plugin;

/* The version fields of a descriptor, first in its initializer:
       static const klab_plugin descriptor = { KLAB_DESCRIPTOR_HEADER, .name = "rmsnorm", ... };
   Fill the descriptor and the profiles by field name, in C and in C++20 alike: C++20's designated
   initializers must follow the declaration order above, so a field named out of order does not
   compile, where a positional initializer of two dozen fields (name and version, summary and baseline
   are the same type) compiles whatever order it has. Positional initializers are not supported. g++'s
   -Wextra (12 at least) warns in C++ of each field a designated initializer leaves out: name them
   all (NULL, 0), as plugin-sdk/examples/saxpy does, or add -Wno-missing-field-initializers. */
#define KLAB_DESCRIPTOR_HEADER                                                                    \
    .abi_major = KLAB_ABI_MAJOR, .abi_minor = KLAB_ABI_MINOR, .struct_size = sizeof(klab_plugin), \
    .profile_size = sizeof(klab_profile)

/* The profiles and their enumeration from one list, so an index and its profile cannot drift apart:
       #define SAXPY_PROFILES(X)                                               \
           X(SAXPY_NAIVE, .name = "naive", .summary = "one element a thread") \
           X(SAXPY_WIDE, .name = "wide", .summary = "four elements a thread")
       enum { KLAB_PROFILE_IDS(SAXPY_PROFILES) SAXPY_PROFILE_COUNT };  // SAXPY_NAIVE = 0, SAXPY_WIDE = 1
       static const klab_profile profiles[] = {KLAB_PROFILE_TABLE(SAXPY_PROFILES)};
   Each X() is an identifier and the profile's fields by name; the table ends with the name == NULL
   entry the descriptor needs. launch->profile then compares with the identifiers. */
#define KLAB_PROFILE_ID_(id, ...) id,
#define KLAB_PROFILE_ENTRY_(id, ...) {__VA_ARGS__},
#define KLAB_PROFILE_IDS(list) list(KLAB_PROFILE_ID_)
#ifdef __cplusplus
#define KLAB_PROFILE_END_ {} /* value-initialised: no field left out to warn of */
#else
#define KLAB_PROFILE_END_ {.name = NULL}
#endif
#define KLAB_PROFILE_TABLE(list) list(KLAB_PROFILE_ENTRY_) KLAB_PROFILE_END_

/* The entry point every plugin exports with C linkage:
 *
 *   KLAB_EXPORT const klab_plugin *klab_plugin_entry(uint32_t host_abi_major, uint32_t host_abi_minor);
 *
 * It MAY return NULL to decline a host it cannot work with; it MUST NOT touch the GPU and MUST be a
 * pure function of its arguments (the host may call it again with an older major to learn which ABI
 * a declining plugin speaks). The descriptor and everything it points to MUST stay valid until the
 * plugin is unloaded. */
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
