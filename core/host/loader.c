#include "host/loader.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int valid_ident(const char *s)
{
    if (!s || !*s)
        return 0;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

static int refuse(loaded_plugin *p, char *err, size_t errlen, const char *why)
{
    snprintf(err, errlen, "%s: %s", p->path, why);
    if (p->handle)
        dlclose(p->handle);
    p->handle = NULL;
    return -1;
}

/* A field the other side's declared size cuts, wholly or in part, is absent: zero, never half a
   pointer (a struct_size ending inside `work` once made the worker call a torn address). */
#define KEEP_WHOLE(type, size, obj, field)              \
    do {                                                \
        if (!KLAB_HAS_FIELD(type, size, field))         \
            memset(&(obj).field, 0, sizeof (obj).field); \
    } while (0)

/* The required part of a 2.0 descriptor: everything through the teardown hook. */
#define DESC_REQUIRED (offsetof(klab_plugin, teardown) + sizeof(((klab_plugin *)0)->teardown))
/* The part of a profile every version has: its name and summary. */
#define PROFILE_REQUIRED (offsetof(klab_profile, summary) + sizeof(((klab_profile *)0)->summary))

/* A plugin built for another major declines this host (KLAB_PLUGIN_ENTRY does): asked as an older
   host, it tells which ABI it was built for, and the refusal can say so. The newest minor of each
   older major is offered, so a plugin that needs a recent minor still answers. */
static const klab_plugin *older_abi(klab_entry_fn entry)
{
    for (uint32_t major = KLAB_ABI_MAJOR - 1; major >= 1; major--) {
        const klab_plugin *d = entry(major, UINT32_MAX);
        if (d)
            return d; /* only its first fields, {abi_major, abi_minor}, mean the same in every ABI */
    }
    return NULL;
}

/* 0, or -1 with the reason: a 0-ended list of plausible compute capabilities. */
static int check_archs(const int *archs, const char *whose, char *why, size_t whylen)
{
    if (!archs)
        return 0;
    for (int i = 0; i <= LOADER_MAX_ARCHS; i++) {
        if (archs[i] == 0) {
            if (i > 0)
                return 0;
            snprintf(why, whylen, "%s archs list names no compute capability (use NULL for any device)", whose);
            return -1;
        }
        if (archs[i] < 10 || archs[i] > 1000) {
            snprintf(why, whylen, "%s archs list holds %d, not a compute capability as major*10+minor", whose,
                     archs[i]);
            return -1;
        }
    }
    snprintf(why, whylen, "%s archs list has no terminating 0 within %d entries", whose, LOADER_MAX_ARCHS);
    return -1;
}

/* The profiles, read with the plugin's stride into this host's layout. */
static int read_profiles(loaded_plugin *p, const klab_plugin *d, char *why, size_t whylen)
{
    const char *base = (const char *)d->profiles;
    size_t stride = d->profile_size, take = stride < sizeof(klab_profile) ? stride : sizeof(klab_profile);
    if (stride < PROFILE_REQUIRED || stride % sizeof(void *) != 0) {
        snprintf(why, whylen, "profile_size %u is not a profile: at least %zu bytes, a multiple of %zu",
                 d->profile_size, (size_t)PROFILE_REQUIRED, sizeof(void *));
        return -1;
    }
    if (!base) {
        snprintf(why, whylen, "declares no profiles");
        return -1;
    }
    for (int i = 0;; i++) {
        klab_profile pr;
        memset(&pr, 0, sizeof pr);
        memcpy(&pr, base + (size_t)i * stride, take);
        if (!pr.name)
            break;
        if (i == LOADER_MAX_PROFILES) {
            snprintf(why, whylen, "declares more than %d profiles", LOADER_MAX_PROFILES);
            return -1;
        }
        KEEP_WHOLE(klab_profile, stride, pr, flags);
        KEEP_WHOLE(klab_profile, stride, pr, archs);
        KEEP_WHOLE(klab_profile, stride, pr, config);
        pr.flags &= KLAB_PROFILE_OWNS_GRAPH | KLAB_PROFILE_FIXED_TENSORS; /* unknown bits: ignored */
        p->profiles[i] = pr;
        p->nprofiles = i + 1;
    }
    if (p->nprofiles == 0) {
        snprintf(why, whylen, "declares no profiles");
        return -1;
    }
    return 0;
}

int loader_open(const char *path, const char *expected, loaded_plugin *p, char *err, size_t errlen)
{
    char why[1024];
    memset(p, 0, sizeof *p);
    snprintf(p->path, sizeof p->path, "%s", path);

    dlerror();
    /* RTLD_LOCAL: a plugin's symbols never resolve another plugin's (or the host's) references. */
    p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->handle) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "not a loadable shared object: %s", e ? e : "dlopen failed");
        return refuse(p, err, errlen, why);
    }
    dlerror();
    void *sym = dlsym(p->handle, KLAB_ENTRY_SYMBOL);
    if (!sym) {
        snprintf(why, sizeof why, "no entry symbol %s (is it exported with C linkage?)", KLAB_ENTRY_SYMBOL);
        return refuse(p, err, errlen, why);
    }
    klab_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry); /* object pointer to function pointer, as POSIX allows */
    const klab_plugin *d = entry(KLAB_ABI_MAJOR, KLAB_ABI_MINOR), *old = d ? NULL : older_abi(entry);
    if (!d && (!old || old->abi_major == KLAB_ABI_MAJOR)) {
        snprintf(why, sizeof why, "%s returned no descriptor: the plugin declines this host (ABI %d.%d)",
                 KLAB_ENTRY_SYMBOL, KLAB_ABI_MAJOR, KLAB_ABI_MINOR);
        return refuse(p, err, errlen, why);
    }
    if (!d)
        d = old; /* refused below, by the ABI it names */
    if (d->abi_major != KLAB_ABI_MAJOR) {
        snprintf(why, sizeof why, "built for plugin ABI %u.%u; this klab speaks %d.%d", d->abi_major,
                 d->abi_minor, KLAB_ABI_MAJOR, KLAB_ABI_MINOR);
        return refuse(p, err, errlen, why);
    }
    if (d->struct_size < DESC_REQUIRED) {
        snprintf(why, sizeof why, "descriptor too small: struct_size %u, ABI %d.0 needs at least %zu bytes",
                 d->struct_size, KLAB_ABI_MAJOR, (size_t)DESC_REQUIRED);
        return refuse(p, err, errlen, why);
    }
    /* A newer minor's descriptor is longer: this host reads its own fields only. */
    memcpy(&p->desc, d, d->struct_size < sizeof p->desc ? d->struct_size : sizeof p->desc);
    KEEP_WHOLE(klab_plugin, d->struct_size, p->desc, work);
    KEEP_WHOLE(klab_plugin, d->struct_size, p->desc, tolerance);
    KEEP_WHOLE(klab_plugin, d->struct_size, p->desc, run_host);
    KEEP_WHOLE(klab_plugin, d->struct_size, p->desc, verify_host);
    KEEP_WHOLE(klab_plugin, d->struct_size, p->desc, check_param);
    klab_plugin *k = &p->desc;

    if (!valid_ident(k->name)) {
        snprintf(why, sizeof why, "plugin name '%s' is not [a-z0-9_]+", k->name ? k->name : "(null)");
        return refuse(p, err, errlen, why);
    }
    if (expected && strcmp(expected, k->name) != 0) {
        snprintf(why, sizeof why, "names itself '%s' but the file promises '%s'", k->name, expected);
        return refuse(p, err, errlen, why);
    }
    static const char *const hook_names[] = {"setup", "run", "verify", "teardown"};
    /* 2.1's run_host and verify_host stand in for run and verify */
    const void *hooks[] = {(const void *)k->setup, k->run ? (const void *)k->run : (const void *)k->run_host,
                           k->verify ? (const void *)k->verify : (const void *)k->verify_host,
                           (const void *)k->teardown};
    for (int i = 0; i < 4; i++)
        if (!hooks[i]) {
            snprintf(why, sizeof why, "missing required hook '%s'", hook_names[i]);
            return refuse(p, err, errlen, why);
        }
    if (read_profiles(p, d, why, sizeof why) != 0)
        return refuse(p, err, errlen, why);
    k->profiles = p->profiles;
    p->baseline = -1;
    for (int i = 0; i < p->nprofiles; i++) {
        const klab_profile *pr = &p->profiles[i];
        if (!valid_ident(pr->name)) {
            snprintf(why, sizeof why, "profile name '%s' is not [a-z0-9_]+", pr->name);
            return refuse(p, err, errlen, why);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(pr->name, p->profiles[j].name) == 0) {
                snprintf(why, sizeof why, "profile '%s' declared twice", pr->name);
                return refuse(p, err, errlen, why);
            }
        char whose[128];
        snprintf(whose, sizeof whose, "profile '%s':", pr->name);
        if (check_archs(pr->archs, whose, why, sizeof why) != 0)
            return refuse(p, err, errlen, why);
        if (k->baseline && strcmp(k->baseline, pr->name) == 0)
            p->baseline = i;
    }
    if (k->baseline && p->baseline < 0) {
        snprintf(why, sizeof why, "baseline '%s' is not one of its profiles", k->baseline);
        return refuse(p, err, errlen, why);
    }
    if (check_archs(k->archs, "its", why, sizeof why) != 0)
        return refuse(p, err, errlen, why);
    /* Dtypes only gain values: one this host does not know is ignored, not a refusal. */
    uint32_t known = k->dtypes & ((1u << KLAB_DTYPE_COUNT) - 1);
    if (known == 0) {
        snprintf(why, sizeof why, "dtype mask 0x%x names no dtype this host knows", k->dtypes);
        return refuse(p, err, errlen, why);
    }
    k->dtypes = known;
    k->flags &= KLAB_PLUGIN_STEPS;
    if (k->flags & KLAB_PLUGIN_STEPS) {
        if (k->default_steps < 1)
            k->default_steps = 1;
    } else {
        k->default_steps = 0;
    }
    return 0;
}

klab_status loader_run(const loaded_plugin *p, void *state, klab_ctx *ctx, const klab_host *host,
                       const klab_launch *launch)
{
    return p->desc.run_host ? p->desc.run_host(state, ctx, host, launch) : p->desc.run(state, launch);
}

klab_status loader_verify(const loaded_plugin *p, void *state, klab_ctx *ctx, const klab_host *host,
                          const klab_case *kcase, const klab_verify_io *io)
{
    return p->desc.verify_host ? p->desc.verify_host(state, ctx, host, kcase, io) : p->desc.verify(state, kcase, io);
}

void loader_close(loaded_plugin *p)
{
    if (p->handle)
        dlclose(p->handle);
    p->handle = NULL;
}

int loader_profile_index(const loaded_plugin *p, const char *name)
{
    for (int i = 0; i < p->nprofiles; i++)
        if (strcmp(p->profiles[i].name, name) == 0)
            return i;
    return -1;
}

const int *loader_profile_archs(const loaded_plugin *p, int i)
{
    return p->profiles[i].archs ? p->profiles[i].archs : p->desc.archs;
}

int loader_arch_admits(const int *archs, int cc)
{
    if (!archs)
        return 1;
    for (int i = 0; archs[i]; i++)
        if (archs[i] == cc)
            return 1;
    return 0;
}

void loader_archs_text(const int *archs, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; archs && archs[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%ssm_%d", i ? ", " : "", archs[i]);
}
