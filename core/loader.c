#include "loader.h"

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
    const klab_plugin *d = entry(KLAB_ABI_MAJOR, KLAB_ABI_MINOR);
    if (!d) {
        snprintf(why, sizeof why, "%s returned no descriptor: the plugin declines this host (ABI %d.%d)",
                 KLAB_ENTRY_SYMBOL, KLAB_ABI_MAJOR, KLAB_ABI_MINOR);
        return refuse(p, err, errlen, why);
    }
    if (d->abi_major != KLAB_ABI_MAJOR) {
        snprintf(why, sizeof why, "built for plugin ABI %u.%u; this klab speaks %d.%d", d->abi_major,
                 d->abi_minor, KLAB_ABI_MAJOR, KLAB_ABI_MINOR);
        return refuse(p, err, errlen, why);
    }
    size_t need = offsetof(klab_plugin, teardown) + sizeof d->teardown;
    if (d->struct_size < need) {
        snprintf(why, sizeof why, "descriptor too small: struct_size %u, ABI %d.0 needs at least %zu bytes",
                 d->struct_size, KLAB_ABI_MAJOR, need);
        return refuse(p, err, errlen, why);
    }
    memset(&p->desc, 0, sizeof p->desc);
    memcpy(&p->desc, d, d->struct_size < sizeof p->desc ? d->struct_size : sizeof p->desc);
    const klab_plugin *k = &p->desc;

    if (!valid_ident(k->name)) {
        snprintf(why, sizeof why, "plugin name '%s' is not [a-z0-9_]+", k->name ? k->name : "(null)");
        return refuse(p, err, errlen, why);
    }
    if (expected && strcmp(expected, k->name) != 0) {
        snprintf(why, sizeof why, "names itself '%s' but the file promises '%s'", k->name, expected);
        return refuse(p, err, errlen, why);
    }
    static const char *const hook_names[] = {"setup", "run", "verify", "teardown"};
    const void *hooks[] = {(const void *)k->setup, (const void *)k->run, (const void *)k->verify,
                           (const void *)k->teardown};
    for (int i = 0; i < 4; i++)
        if (!hooks[i]) {
            snprintf(why, sizeof why, "missing required hook '%s'", hook_names[i]);
            return refuse(p, err, errlen, why);
        }
    if (!k->profiles || !k->profiles[0].name) {
        snprintf(why, sizeof why, "declares no profiles");
        return refuse(p, err, errlen, why);
    }
    p->baseline = -1;
    for (int i = 0; k->profiles[i].name; i++) {
        if (i == LOADER_MAX_PROFILES) {
            snprintf(why, sizeof why, "declares more than %d profiles", LOADER_MAX_PROFILES);
            return refuse(p, err, errlen, why);
        }
        if (!valid_ident(k->profiles[i].name)) {
            snprintf(why, sizeof why, "profile name '%s' is not [a-z0-9_]+", k->profiles[i].name);
            return refuse(p, err, errlen, why);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(k->profiles[i].name, k->profiles[j].name) == 0) {
                snprintf(why, sizeof why, "profile '%s' declared twice", k->profiles[i].name);
                return refuse(p, err, errlen, why);
            }
        if (k->baseline && strcmp(k->baseline, k->profiles[i].name) == 0)
            p->baseline = i;
        p->nprofiles = i + 1;
    }
    if (k->baseline && p->baseline < 0) {
        snprintf(why, sizeof why, "baseline '%s' is not one of its profiles", k->baseline);
        return refuse(p, err, errlen, why);
    }
    if (k->dtypes == 0 || (k->dtypes & ~((1u << KLAB_DTYPE_COUNT) - 1))) {
        snprintf(why, sizeof why, "dtype mask 0x%x names no dtype this host knows", k->dtypes);
        return refuse(p, err, errlen, why);
    }
    return 0;
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
        if (strcmp(p->desc.profiles[i].name, name) == 0)
            return i;
    return -1;
}
