/* discovery: which folders are searched for plugins and INI files, in which order, and what a scan
 * finds there. Plugins here are empty *.so files: discovery lists files, it does not dlopen them. */
#include "klab_test.h"

#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/discovery.h"

typedef struct fixture {
    char root[PATH_MAX]; /* the real path of the temporary folder */
    discovery d;
} fixture;

static void path_of(const fixture *f, const char *rel, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", f->root, rel);
}

static void make_dir(const fixture *f, const char *rel)
{
    char p[PATH_MAX + 64];
    path_of(f, rel, p, sizeof p);
    assert_int_equal(mkdir(p, 0777), 0);
}

static void touch(const fixture *f, const char *rel)
{
    char p[PATH_MAX + 64];
    path_of(f, rel, p, sizeof p);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fclose(fp);
}

static void remove_file(const fixture *f, const char *rel)
{
    char p[PATH_MAX + 64];
    path_of(f, rel, p, sizeof p);
    assert_int_equal(unlink(p), 0);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    char tmpl[] = "/tmp/klab-disc-XXXXXX";
    if (!mkdtemp(tmpl) || !realpath(tmpl, f->root)) {
        free(f);
        return -1;
    }
    unsetenv("KLAB_PLUGIN_PATH");
    unsetenv("KLAB_INI_PATH");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    int rc = system(cmd);
    unsetenv("KLAB_PLUGIN_PATH");
    unsetenv("KLAB_INI_PATH");
    free(f);
    return rc == 0 ? 0 : -1;
}

/* The tree most tests use:
 *   p1/   kt_gamma.so kt_alpha.so kt_beta.so  notes.txt .kt_hidden.so kt_lib.so.1 .so
 *   p2/   kt_delta.so kt_alpha.so             (kt_alpha shadowed by p1's)
 *   env1/ kt_epsilon.so kt_beta.so            (kt_beta shadowed by p1's)
 *   env2/ kt_alpha.so                         (a second shadow of kt_alpha: the first one is kept)
 */
static void build_tree(fixture *f)
{
    const char *dirs[] = {"p1", "p2", "env1", "env2", "ini_user", "ini_env", "exe_like"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        make_dir(f, dirs[i]);
    const char *files[] = {"p1/kt_gamma.so", "p1/kt_alpha.so", "p1/kt_beta.so", "p1/notes.txt",
                           "p1/.kt_hidden.so", "p1/kt_lib.so.1", "p1/.so", "p2/kt_delta.so",
                           "p2/kt_alpha.so", "env1/kt_epsilon.so", "env1/kt_beta.so", "env2/kt_alpha.so"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        touch(f, files[i]);
}

static void init(fixture *f)
{
    char p1[PATH_MAX + 8], p2[PATH_MAX + 8], env[3 * PATH_MAX], ini_user[PATH_MAX + 16],
        ini_env[PATH_MAX + 16];
    path_of(f, "p1", p1, sizeof p1);
    path_of(f, "p2", p2, sizeof p2);
    path_of(f, "ini_user", ini_user, sizeof ini_user);
    path_of(f, "ini_env", ini_env, sizeof ini_env);
    /* env1 and env2, a folder that does not exist, and p1 again (listed once) */
    snprintf(env, sizeof env, "%s/env1:%s/env2:%s/missing:%s", f->root, f->root, f->root, p1);
    setenv("KLAB_PLUGIN_PATH", env, 1);
    setenv("KLAB_INI_PATH", ini_env, 1);
    const char *paths[] = {p1, p2};
    discovery_init(&f->d, paths, 2, ini_user);
}

static void expect_dir(const fixture *f, const char *have, const char *rel)
{
    char want[PATH_MAX + 64];
    path_of(f, rel, want, sizeof want);
    assert_string_equal(have, want);
}

static void test_plugin_dir_order(void **state)
{
    fixture *f = *state;
    build_tree(f);
    init(f);
    const discovery *d = &f->d;
    /* --plugin-path first, in order; then KLAB_PLUGIN_PATH, in order, without repeats */
    assert_true(d->ndirs >= 5);
    expect_dir(f, d->dirs[0], "p1");
    expect_dir(f, d->dirs[1], "p2");
    expect_dir(f, d->dirs[2], "env1");
    expect_dir(f, d->dirs[3], "env2");
    expect_dir(f, d->dirs[4], "missing");
    for (int i = 5; i < d->ndirs; i++)
        assert_null(strstr(d->dirs[i], f->root));

    /* then the executable's plugins/ and ../lib/klab/plugins */
    char exe[PATH_MAX], want[PATH_MAX + 64], real[PATH_MAX];
    assert_int_equal(exe_dir(exe, sizeof exe), 0);
    assert_int_equal(d->ndirs, 7);
    snprintf(want, sizeof want, "%s/plugins", exe);
    assert_string_equal(d->dirs[5], realpath(want, real) ? real : want);
    snprintf(want, sizeof want, "%s/../lib/klab/plugins", exe);
    assert_string_equal(d->dirs[6], realpath(want, real) ? real : want);

    /* INI folders: --ini-dir, KLAB_INI_PATH (the user's), then the executable's ini/ and share/klab/ini */
    assert_int_equal(d->nini_user, 2);
    expect_dir(f, d->ini_dirs[0], "ini_user");
    expect_dir(f, d->ini_dirs[1], "ini_env");
    assert_int_equal(d->nini, 4);
    snprintf(want, sizeof want, "%s/ini", exe);
    assert_string_equal(d->ini_dirs[2], realpath(want, real) ? real : want);
    snprintf(want, sizeof want, "%s/../share/klab/ini", exe);
    assert_string_equal(d->ini_dirs[3], realpath(want, real) ? real : want);
}

static void test_exe_dir(void **state)
{
    (void)state;
    char exe[PATH_MAX], self[PATH_MAX + 32];
    assert_int_equal(exe_dir(exe, sizeof exe), 0);
    snprintf(self, sizeof self, "%s/test_discovery", exe);
    assert_int_equal(access(self, X_OK), 0);
    /* exe_path is the same file: the folder, a slash, the program's name */
    char path[PATH_MAX];
    assert_int_equal(exe_path(path, sizeof path), 0);
    assert_string_equal(path, self);
}

static void expect_plugin(const fixture *f, const found_plugin *p, const char *name, const char *dir,
                          const char *shadow)
{
    char want[PATH_MAX + 128];
    assert_string_equal(p->name, name);
    expect_dir(f, p->dir, dir);
    snprintf(want, sizeof want, "%s/%s/%s.so", f->root, dir, name);
    assert_string_equal(p->path, want);
    if (shadow) {
        snprintf(want, sizeof want, "%s/%s/%s.so", f->root, shadow, name);
        assert_string_equal(p->shadows, want);
    } else {
        assert_string_equal(p->shadows, "");
    }
}

static void test_scan(void **state)
{
    fixture *f = *state;
    build_tree(f);
    init(f);
    discovery_scan(&f->d);
    const discovery *d = &f->d;
    /* ours come first (their folders come first); plugins beside the test executable may follow */
    assert_true(d->nplugins >= 5);
    expect_plugin(f, &d->plugins[0], "kt_alpha", "p1", "p2");
    expect_plugin(f, &d->plugins[1], "kt_beta", "p1", "env1");
    expect_plugin(f, &d->plugins[2], "kt_gamma", "p1", NULL);
    expect_plugin(f, &d->plugins[3], "kt_delta", "p2", NULL);
    expect_plugin(f, &d->plugins[4], "kt_epsilon", "env1", NULL);
    for (int i = 5; i < d->nplugins; i++) {
        assert_null(strstr(d->plugins[i].path, f->root));
        assert_true(strncmp(d->plugins[i].name, "kt_", 3) != 0);
    }
    /* a name is listed once, whatever folders hold it */
    for (int i = 0; i < d->nplugins; i++)
        for (int j = i + 1; j < d->nplugins; j++)
            assert_true(strcmp(d->plugins[i].name, d->plugins[j].name) != 0);

    /* scanning again gives the same list, not a doubled one */
    int n = d->nplugins;
    discovery_scan(&f->d);
    assert_int_equal(d->nplugins, n);
    expect_plugin(f, &d->plugins[0], "kt_alpha", "p1", "p2");
}

static void test_find(void **state)
{
    fixture *f = *state;
    build_tree(f);
    init(f);
    discovery_scan(&f->d);
    const found_plugin *p = discovery_find(&f->d, "kt_delta");
    assert_non_null(p);
    expect_plugin(f, p, "kt_delta", "p2", NULL);
    p = discovery_find(&f->d, "kt_alpha");
    assert_non_null(p);
    expect_dir(f, p->dir, "p1"); /* the first folder wins */
    assert_null(discovery_find(&f->d, "kt_hidden"));
    assert_null(discovery_find(&f->d, ".kt_hidden"));
    assert_null(discovery_find(&f->d, "notes"));
    assert_null(discovery_find(&f->d, "kt_lib"));
    assert_null(discovery_find(&f->d, "kt_lib.so"));
    assert_null(discovery_find(&f->d, ""));
    assert_null(discovery_find(&f->d, "kt_alph"));
}

static void expect_ini(const fixture *f, const char *plugin, const char *rel_dir)
{
    char got[PATH_MAX + 64] = "", want[PATH_MAX + 128];
    if (!rel_dir) {
        assert_int_equal(discovery_ini(&f->d, plugin, got, sizeof got), -1);
        return;
    }
    int rc = discovery_ini(&f->d, plugin, got, sizeof got);
    if (rc != 0)
        fail_msg("no INI found for %s, want %s", plugin, rel_dir);
    snprintf(want, sizeof want, "%s/%s/%s.ini", f->root, rel_dir, plugin);
    assert_string_equal(got, want);
}

/* Stands a folder of ours in for the executable's ini/ (whose place test_plugin_dir_order checks),
   so no test writes beside the build. */
static void stand_in_exe_ini(fixture *f)
{
    char p[PATH_MAX + 16];
    path_of(f, "exe_like", p, sizeof p);
    assert_true(f->d.nini > f->d.nini_user);
    snprintf(f->d.ini_dirs[f->d.nini_user], sizeof f->d.ini_dirs[0], "%s", p);
}

static void test_ini_order(void **state)
{
    fixture *f = *state;
    build_tree(f);
    init(f);
    discovery_scan(&f->d);
    stand_in_exe_ini(f);

    touch(f, "ini_user/kt_alpha.ini");
    touch(f, "ini_env/kt_alpha.ini");
    touch(f, "p1/kt_alpha.ini");
    touch(f, "exe_like/kt_alpha.ini");
    expect_ini(f, "kt_alpha", "ini_user"); /* --ini-dir */
    remove_file(f, "ini_user/kt_alpha.ini");
    expect_ini(f, "kt_alpha", "ini_env"); /* KLAB_INI_PATH */
    remove_file(f, "ini_env/kt_alpha.ini");
    expect_ini(f, "kt_alpha", "p1"); /* the plugin's own folder */
    remove_file(f, "p1/kt_alpha.ini");
    expect_ini(f, "kt_alpha", "exe_like"); /* beside the executable */
    remove_file(f, "exe_like/kt_alpha.ini");
    expect_ini(f, "kt_alpha", NULL);
}

static void test_ini_plugin_folder_is_its_own(void **state)
{
    fixture *f = *state;
    build_tree(f);
    init(f);
    discovery_scan(&f->d);
    stand_in_exe_ini(f);
    /* kt_delta lives in p2: an INI in p1 or in the folder of its shadow is not its own */
    touch(f, "p1/kt_delta.ini");
    expect_ini(f, "kt_delta", NULL);
    touch(f, "p2/kt_alpha.ini"); /* beside kt_alpha's shadow, not kt_alpha */
    expect_ini(f, "kt_alpha", NULL);
    touch(f, "p2/kt_delta.ini");
    expect_ini(f, "kt_delta", "p2");
    /* a plugin that was not found: only the INI folders */
    touch(f, "exe_like/kt_nowhere.ini");
    expect_ini(f, "kt_nowhere", "exe_like");
    touch(f, "ini_env/kt_nowhere.ini");
    expect_ini(f, "kt_nowhere", "ini_env");
    /* a folder named like the INI is not one */
    make_dir(f, "ini_user/kt_delta.ini");
    expect_ini(f, "kt_delta", "p2");
}

static void test_no_paths_given(void **state)
{
    fixture *f = *state;
    /* nothing from the command line or the environment: only the executable's folders */
    discovery_init(&f->d, NULL, 0, NULL);
    assert_int_equal(f->d.ndirs, 2);
    assert_int_equal(f->d.nini_user, 0);
    assert_int_equal(f->d.nini, 2);
    setenv("KLAB_PLUGIN_PATH", "::", 1); /* empty entries are skipped */
    discovery_init(&f->d, NULL, 0, "");
    assert_int_equal(f->d.ndirs, 2);
    assert_int_equal(f->d.nini_user, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plugin_dir_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exe_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scan, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ini_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ini_plugin_folder_is_its_own, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_paths_given, setup, teardown),
    };
    KLAB_RUN_TESTS(tests);
}
