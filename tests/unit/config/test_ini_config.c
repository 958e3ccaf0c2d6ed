/* ini_config: the experiment INI, parsed and validated before any GPU work. Every broken form fails
 * with one message naming file, line and key; bytes that are not INI text and paths that are not INI
 * files are refused. What a good file's cases hold: test_ini_cases; the plugin's checks: test_ini_check. */
#include "klab_test.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ini_fixture.h"

/* The whole message must be exactly `want`. */
static void load_fails(const char *file, const char *want)
{
    char err[1024] = "";
    assert_int_equal(cfg_load(file, &cfg, err, sizeof err), -1);
    assert_string_equal(err, want);
}

#define BAD(name, rest) load_fails(INI_DIR name, INI_DIR name rest)

/* ---- good files ---- */

static void test_good_line_of_196_characters(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_long_line.ini");
    assert_int_equal(strlen(cfg.question), 196 - strlen("question = "));
    assert_int_equal(cfg.ncases, 1);
    assert_int_equal(cfg.cases[0].dims[0], 7);
    assert_int_equal(cfg.cases[0].dims[1], 1000);
}

/* ---- broken files: the exact message ---- */

static void test_missing_file(void **state)
{
    (void)state;
    BAD("does_not_exist.ini", ": cannot open: No such file or directory");
}

static void test_unknown_section(void **state)
{
    (void)state;
    BAD("bad_unknown_section.ini",
        ":4: unknown section [bogus] (known: [experiment], [defaults], [case NAME])");
}

static void test_unknown_key(void **state)
{
    (void)state;
    BAD("bad_unknown_key.ini",
        ":4: [case 4096x8192] unknown key 'warmpu' (known: shape, dtypes, profiles, warmup, min_reps, "
        "max_reps, precision, budget_ms, steps, config, param.NAME, dim.NAME)");
    BAD("bad_unknown_experiment_key.ini", ":3: [experiment] unknown key 'plugins' (known: plugin, question)");
}

static void test_key_before_section(void **state)
{
    (void)state;
    BAD("bad_key_before_section.ini", ":2: key 'plugin' before any section (start with [experiment])");
}

static void test_bad_whole_number(void **state)
{
    (void)state;
    BAD("bad_whole_number.ini", ":4: [defaults] key 'warmup': '10.5' is not a whole number");
}

static void test_number_out_of_range(void **state)
{
    (void)state;
    BAD("bad_out_of_range.ini", ":5: [case 4096x8192] key 'min_reps': 0 is outside 1..1000000");
}

static void test_bad_precision(void **state)
{
    (void)state;
    BAD("bad_precision.ini", ":4: [defaults] key 'precision': '0.5%' is not a number");
    BAD("bad_precision_range.ini", ":4: [defaults] key 'precision': 1 is outside (0, 1)");
    /* the key it replaced is named, with what replaced it */
    BAD("bad_noise.ini",
        ":5: 'noise' was replaced by 'precision' (the 95 % interval's half-width over the median)");
}

static void test_empty_list(void **state)
{
    (void)state;
    BAD("bad_empty_list.ini", ":4: [defaults] key 'dtypes': empty list");
}

static void test_empty_list_item(void **state)
{
    (void)state;
    BAD("bad_empty_item.ini", ":4: [defaults] key 'dtypes': empty item in the list");
    BAD("bad_empty_item_adjacent.ini", ":4: [case 4096x8192] key 'profiles': empty item in the list");
}

static void test_unknown_dtype(void **state)
{
    (void)state;
    BAD("bad_unknown_dtype.ini",
        ":4: [defaults] key 'dtypes': unknown dtype 'fp64' (known: fp32, fp16, bf16, fp8e4m3, fp8e5m2, int32, int64)");
}

static void test_dtype_listed_twice(void **state)
{
    (void)state;
    BAD("bad_dtype_twice.ini", ":4: [case 4096x8192] key 'dtypes': 'float16' listed twice");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    BAD("bad_duplicate_key.ini",
        ":6: [case a] key 'warmup' given twice (an indented line continues the key above it)");
    BAD("bad_plugin_twice.ini", ":3: [experiment] key 'plugin' given twice");
}

/* inih reads an indented line as more of the key above: the parser sees that key again. */
static void test_indented_continuation(void **state)
{
    (void)state;
    BAD("bad_continuation.ini",
        ":5: [defaults] key 'profiles' given twice (an indented line continues the key above it)");
}

static void test_duplicate_case(void **state)
{
    (void)state;
    BAD("bad_duplicate_case.ini", ":7: [case a]: case 'a' defined twice (first at line 4)");
}

static void test_bad_case_name(void **state)
{
    (void)state;
    BAD("bad_case_name.ini",
        ":3: [case a b]: a case section is [case NAME], NAME of letters, digits and _ - . ^");
}

static void test_bad_shapes(void **state)
{
    (void)state;
    BAD("bad_shape_letter.ini", ":4: [case c] key 'shape': '4096y8192' is not a shape like 4096x8192 or 2^28");
    BAD("bad_shape_zero.ini", ":4: [case c] key 'shape': '0x5': dimensions must be positive whole numbers");
    BAD("bad_shape_power.ini", ":4: [case c] key 'shape': '3^4': only powers of two up to 2^40 are written with ^");
    BAD("bad_shape_trailing_x.ini", ":4: [case c] key 'shape': '4096x' ends with 'x'");
}

static void test_shape_in_defaults(void **state)
{
    (void)state;
    BAD("bad_shape_in_defaults.ini", ":4: [defaults] key 'shape' belongs in a [case NAME] section");
}

static void test_section_without_bracket(void **state)
{
    (void)state;
    BAD("bad_section_bracket.ini", ":3: section header without ']'");
}

static void test_line_too_long(void **state)
{
    (void)state;
    BAD("bad_long_line.ini", ":3: line longer than 196 characters");
}

static void test_syntax_error(void **state)
{
    (void)state;
    BAD("bad_syntax.ini", ":3: syntax error: expected [section], key = value or a ; comment");
}

static void test_no_plugin(void **state)
{
    (void)state;
    BAD("bad_no_plugin.ini", ": no plugin named: add [experiment] with plugin = NAME");
}

static void test_no_cases(void **state)
{
    (void)state;
    BAD("bad_no_cases.ini", ": no cases: add at least one [case NAME] section");
}

static void test_case_name_not_a_shape(void **state)
{
    (void)state;
    BAD("bad_case_not_shape.ini", ":6: [case odd] has no key 'shape' and its name is not a shape");
}

static void test_max_reps_below_min_reps(void **state)
{
    (void)state;
    /* the line of the key that made them disagree: max_reps in [case a], min_reps in [defaults] */
    BAD("bad_reps.ini", ":9: [case a] key 'max_reps': 40 is less than min_reps 50");
    BAD("bad_min_reps.ini", ":7: [case a] key 'min_reps': 200 is more than max_reps 100");
}

/* ---- dim.NAME, steps, config ---- */

static void test_bad_dims_steps_config(void **state)
{
    (void)state;
    BAD("bad_dim_name.ini",
        ":4: [case 64] key 'dim.M': a dimension is dim.NAME, NAME of a-z, 0-9 and _ starting with a letter");
    BAD("bad_dim_empty_name.ini",
        ":4: [case 64] key 'dim.': a dimension is dim.NAME, NAME of a-z, 0-9 and _ starting with a letter");
    BAD("bad_dim_value.ini", ":4: [case 64] key 'dim.m': '4k' is not a whole number");
    BAD("bad_dim_zero.ini", ":4: [case 64] key 'dim.m': 0 is outside 1..2^40");
    BAD("bad_dim_range.ini", ":4: [defaults] key 'dim.m': 1099511627777 is outside 1..2^40");
    BAD("bad_dim_twice.ini", ":6: [case 64] key 'dim.m' given twice");
    BAD("bad_dim_long_name.ini", ":4: [case 64] key 'dim.dddddddddddddddddddddddddddddddd': the dimension's "
                                 "name is 32 characters; the limit is 31");
    BAD("bad_dims_too_many.ini", ":20: [case 64] key 'dim.d16': more than 16 dimensions");
    BAD("bad_dims_inherited.ini", ":14: [case 64]: more than 16 dimensions with those inherited from [defaults]");
    BAD("bad_params_inherited.ini",
        ":13: [case 64]: more than 16 parameters with those inherited from [defaults]");
    BAD("bad_steps.ini", ":4: [case 64] key 'steps': 0 is outside 1..1000000");
    BAD("bad_steps_word.ini", ":4: [defaults] key 'steps': 'many' is not a whole number");
    BAD("bad_config.ini", ":4: [case 64] key 'config': 'BM=128 BN=256' is not a configuration like "
                          "bm=128,bn=256 (a-z 0-9 _ = , . only)");
    BAD("bad_config_empty.ini",
        ":4: [case 64] key 'config': '' is not a configuration like bm=128,bn=256 (a-z 0-9 _ = , . only)");
    BAD("bad_config_long.ini", ":4: [case 64] key 'config': the configuration is 128 characters; the limit is 127");
}

/* ---- names and values that would not fit: refused, never cut ---- */

static void test_too_long_is_refused(void **state)
{
    (void)state;
    /* two names alike in their first 63 characters used to become one, and then a duplicate */
    BAD("bad_long_case_name.ini", ":3: [case ccccccccccccccccccccccccccccccccccccccccccccccccccc"
                                  "ccccccccccccccccccc]: case name is 70 characters; the limit is 63");
    BAD("bad_long_shape.ini", ":4: [case c] key 'shape': the shape is 70 characters; the limit is 63");
    BAD("bad_long_param_value.ini", ":4: [defaults] key 'param.note': the value is 128 characters; the limit is 127");
    BAD("bad_long_param_name.ini", ":4: [case 64] key 'param.pppppppppppppppppppppppppppppppppppppppppppppppppppp"
                                   "pppppppppppp': the parameter's name is 64 characters; the limit is 63");
    BAD("bad_long_profile.ini", ":4: [case 64] key 'profiles': a profile name is 64 characters; the limit is 63");
    BAD("bad_long_plugin.ini", ":2: [experiment] key 'plugin': the plugin name is 64 characters; the limit is 63");
}

/* ---- bytes that are not INI text, and paths that are not INI files ---- */

static char tmp_dir[64];

static int make_tmp(void **state)
{
    (void)state;
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/klab-ini-XXXXXX");
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int remove_tmp(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes len bytes to tmp_dir/name; returns the path (valid until the next call). */
static const char *tmp_file(const char *name, const char *bytes, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    return path;
}

#define TMP_FILE(name, literal) tmp_file(name, literal, sizeof literal - 1)

/* The message for a file in tmp_dir must be "<path><rest>". */
static void tmp_fails(const char *path, const char *rest)
{
    char want[1024];
    snprintf(want, sizeof want, "%s%s", path, rest);
    load_fails(path, want);
}

/* param.NAME's own refusals: the checks it shares with dim.NAME (twice, too many) in its words. */
static void test_bad_params_own(void **state)
{
    (void)state;
    tmp_fails(TMP_FILE("param_twice.ini", "[experiment]\nplugin = rmsnorm\n[case 64]\nparam.eps = 1\n"
                                          "param.eps = 2\n"),
              ":5: [case 64] key 'param.eps' given twice");
    tmp_fails(TMP_FILE("param_noname.ini", "[experiment]\nplugin = rmsnorm\n[defaults]\nparam. = 1\n[case 64]\n"),
              ":4: [defaults] key 'param.': a parameter needs a name after 'param.'");
    tmp_fails(TMP_FILE("param_many.ini", "[experiment]\nplugin = rmsnorm\n[case 64]\n"
                                         "param.p0 = 0\nparam.p1 = 1\nparam.p2 = 2\nparam.p3 = 3\n"
                                         "param.p4 = 4\nparam.p5 = 5\nparam.p6 = 6\nparam.p7 = 7\n"
                                         "param.p8 = 8\nparam.p9 = 9\nparam.pa = a\nparam.pb = b\n"
                                         "param.pc = c\nparam.pd = d\nparam.pe = e\nparam.pf = f\n"
                                         "param.pg = g\n"),
              ":20: [case 64] key 'param.pg': more than 16 parameters");
}

static void test_bom_is_skipped(void **state)
{
    (void)state;
    load_ok(INI_DIR "good_bom.ini");
    assert_string_equal(cfg.plugin, "vector_add");
    assert_int_equal(cfg.plugin_line, 3);
    assert_int_equal(cfg.ncases, 1);
    assert_string_equal(cfg.cases[0].name, "1024");
    /* only at the start: elsewhere U+FEFF is text, and a key cannot be named with it */
    tmp_fails(TMP_FILE("bom_late.ini", "[experiment]\n\xef\xbb\xbfplugin = vector_add\n[case 64]\n"),
              ":2: [experiment] unknown key '\xef\xbb\xbfplugin' (known: plugin, question)");
}

static void test_nul_byte_is_refused(void **state)
{
    (void)state;
    /* it would have run as shape 4096 */
    tmp_fails(TMP_FILE("nul.ini", "[experiment]\nplugin = vector_add\n[case x]\nshape = 4096\0x8192\n"),
              ":4: [case x] key 'shape': NUL byte in the value (an INI file is text)");
    tmp_fails(TMP_FILE("nul_comment.ini", "[experiment]\n; a comment\0\nplugin = vector_add\n[case 64]\n"),
              ":2: NUL byte in a comment (an INI file is text)");
    tmp_fails(TMP_FILE("nul_section.ini", "[experiment]\nplugin = vector_add\n[case 64\0]\n"),
              ":3: NUL byte in a section header (an INI file is text)");
    tmp_fails(TMP_FILE("nul_key.ini", "[experiment]\nplug\0in = vector_add\n[case 64]\n"),
              ":2: [experiment] NUL byte before the '=' of a key (an INI file is text)");
    /* in the last line, with no line ending after it */
    tmp_fails(TMP_FILE("nul_end.ini", "[experiment]\nplugin = vector_add\n[case 64]\nwarmup = 1\0"),
              ":4: [case 64] key 'warmup': NUL byte in the value (an INI file is text)");
}

#define TAB_ONLY " (tab is the only one allowed)"
#define NOT_UTF8 " (not UTF-8, or a C1 control character)"

static void test_control_characters_are_refused(void **state)
{
    (void)state;
    tmp_fails(TMP_FILE("esc.ini", "[experiment]\nplugin = vector_add\nquestion = a \x1b[31mred\x1b[0m\n[case 64]\n"),
              ":3: [experiment] key 'question': control character \\x1b in the value" TAB_ONLY);
    tmp_fails(TMP_FILE("bel.ini", "[experiment]\nplugin = vector_add\n[case a\x07]\n"),
              ":3: control character \\x07 in a section header" TAB_ONLY);
    tmp_fails(TMP_FILE("cr.ini", "[experiment]\nplugin = vector_add\r[case 64]\n"),
              ":2: [experiment] key 'plugin': control character \\x0d in the value" TAB_ONLY);
    tmp_fails(TMP_FILE("del.ini", "[experiment]\nplugin = vector_add\n[case 64]\nparam.op = co\x7fpy\n"),
              ":4: [case 64] key 'param.op': control character \\x7f in the value" TAB_ONLY);
    /* C1 controls (U+009B is CSI to some terminals) and bytes that are not UTF-8 */
    tmp_fails(TMP_FILE("c1.ini", "[experiment]\nplugin = vector_add\nquestion = \xc2\x9b" "31m\n[case 64]\n"),
              ":3: [experiment] key 'question': byte \\xc2 in the value" NOT_UTF8);
    tmp_fails(TMP_FILE("latin1.ini", "[experiment]\nplugin = vector_add\nquestion = caf\xe9\n[case 64]\n"),
              ":3: [experiment] key 'question': byte \\xe9 in the value" NOT_UTF8);
}

/* What stays allowed: tabs, CRLF line endings, UTF-8 text. */
static void test_tabs_crlf_and_utf8_load(void **state)
{
    (void)state;
    load_ok(TMP_FILE("ok.ini", "[experiment]\r\nplugin =\tvector_add\r\n"
                               "question = caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x9a\x80?\r\n"
                               "[defaults]\r\ndtypes = fp16,\tbf16\r\n[case 64]\r\n"));
    assert_string_equal(cfg.plugin, "vector_add");
    assert_string_equal(cfg.question, "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x9a\x80?");
    assert_int_equal(cfg.cases[0].ndtypes, 2);
    assert_int_equal(cfg.cases[0].line, 6);
}

static void test_paths_that_are_not_ini_files(void **state)
{
    (void)state;
    tmp_fails(tmp_dir, ": is a directory, not an INI file");
    tmp_fails("/dev/zero", ": is a character device, not an INI file");
    /* a FIFO is refused by its type, without waiting for a writer */
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/fifo.ini", tmp_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    tmp_fails(fifo, ": is a FIFO, not an INI file");
}

/* 1 MiB is accepted; a byte more is refused before it is read. */
static void test_size_limit(void **state)
{
    (void)state;
    const size_t mib = 1u << 20;
    char *big = malloc(mib + 1);
    assert_non_null(big);
    const char *head = "[experiment]\nplugin = vector_add\n[case 64]\n";
    size_t n = strlen(head);
    memcpy(big, head, n);
    while (n < mib) { /* comment lines up to exactly 1 MiB */
        size_t line = mib - n < 100 ? mib - n : 100;
        memset(big + n, ' ', line);
        big[n] = ';';
        big[n + line - 1] = '\n';
        n += line;
    }
    load_ok(tmp_file("mib.ini", big, mib));
    assert_int_equal(cfg.ncases, 1);
    big[mib] = '\n';
    tmp_fails(tmp_file("mib_plus.ini", big, mib + 1), ": 1048577 bytes: INI files over 1 MiB are refused");
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_line_of_196_characters),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_unknown_section),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_key_before_section),
        cmocka_unit_test(test_bad_whole_number),
        cmocka_unit_test(test_number_out_of_range),
        cmocka_unit_test(test_bad_precision),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_empty_list_item),
        cmocka_unit_test(test_unknown_dtype),
        cmocka_unit_test(test_dtype_listed_twice),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_indented_continuation),
        cmocka_unit_test(test_duplicate_case),
        cmocka_unit_test(test_bad_case_name),
        cmocka_unit_test(test_bad_shapes),
        cmocka_unit_test(test_shape_in_defaults),
        cmocka_unit_test(test_section_without_bracket),
        cmocka_unit_test(test_line_too_long),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_no_plugin),
        cmocka_unit_test(test_no_cases),
        cmocka_unit_test(test_case_name_not_a_shape),
        cmocka_unit_test(test_max_reps_below_min_reps),
        cmocka_unit_test(test_bad_dims_steps_config),
        cmocka_unit_test(test_too_long_is_refused),
        cmocka_unit_test_setup_teardown(test_bad_params_own, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_bom_is_skipped, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_nul_byte_is_refused, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_control_characters_are_refused, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_tabs_crlf_and_utf8_load, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_paths_that_are_not_ini_files, make_tmp, remove_tmp),
        cmocka_unit_test_setup_teardown(test_size_limit, make_tmp, remove_tmp),
    };
    KLAB_RUN_TESTS(tests);
}
