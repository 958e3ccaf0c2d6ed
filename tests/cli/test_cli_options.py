"""klab's command line beyond a run, through the binary and without a GPU: cases made with --shape and
--dim, a --case that matches nothing refused, each subcommand's own --help, --tune --validate's one
line a case, klab report's options, and the JSON documents of --list, --validate, compare and report
(parsed here with python3's json, their schema versions checked).

    python3 tests/cli/test_cli_options.py BUILD     (BUILD: the folder with klab and its plugins)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
KLAB = os.path.join(BUILD, "klab")
PLUGINS = os.path.join(BUILD, "plugins")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")


def run(*args, cwd=ROOT):
    """(exit status, stdout, stderr) of klab with these words."""
    p = subprocess.run([KLAB, *args], capture_output=True, text=True, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def klab(*args):
    """klab with plugins from this build and INIs from the tree's ini/."""
    return run("--plugin-path", PLUGINS, *args)


def fixture_run(name):
    return os.path.join(FIXTURES, "runs", name)


ALL_RUNS = [fixture_run(n) for n in ("copy", "copy-quick", "reduction", "gemm", "rows", "prof")]


class TempDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="klab-cli-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)


class AdhocCases(unittest.TestCase):
    def test_shape_makes_a_case_named_after_it(self):
        rc, out, err = klab("--validate", "--plugin", "softmax", "--shape", "4096x8192")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("case adhoc-4096x8192", out)
        self.assertNotIn("case 4096x1024", out)  # the INI's own cases are not selected

    def test_dims_make_a_case_for_a_plugin_of_named_dims(self):
        rc, out, err = klab("--validate", "--plugin", "matmul_h200", "--dim", "m=64,n=4096", "--dim", "k=512")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("case adhoc-m64-n4096-k512", out)

    def test_refusals(self):
        for args, why in [
            (["--validate", "--shape", "64x64"], "give --plugin"),
            (["--validate", "--plugin", "softmax", "--shape", "64y64"], "--shape:"),
            (["--validate", "--plugin", "softmax", "--dim", "m"], "not NAME=N"),
            (["--validate", "--plugin", "softmax", "--dim", "m=0"], "--dim:"),
            (["--validate", "--plugin", "softmax", "--shape", "64x64", "--case", "4096x1024"], "not both"),
            (["--validate", "--plugin", "matmul_h200", "--shape", "64x64"], "give --dim"),
            (["--plugin", "softmax", "--shape", "64x64", "--with-torch"], "--with-torch"),
        ]:
            rc, out, err = klab(*args)
            self.assertEqual(rc, 2, (args, out, err))
            self.assertIn(why, out + err, args)

    def test_a_dim_the_plugin_does_not_take_is_refused_before_gpu_work(self):
        for cmd in (["--validate"], []):
            rc, out, err = klab(*cmd, "--plugin", "softmax", "--dim", "m=64")
            self.assertEqual(rc, 2, out + err)
            self.assertIn("--dim m: plugin 'softmax' takes no dimension", out + err)

    def test_a_run_of_an_adhoc_case_reaches_the_gpu_check(self):
        rc, out, err = klab("--plugin", "softmax", "--shape", "64x64", "--out", tempfile.mkdtemp())
        self.assertIn(rc, (0, 3), out + err)  # 3: no GPU here, the case itself was accepted


class StrictCase(unittest.TestCase):
    def test_a_case_that_matches_nothing_is_refused_with_the_cases_there_are(self):
        for cmd in (["--validate"], []):
            rc, out, err = klab(*cmd, "--plugin", "softmax", "--case", "123x456")
            self.assertEqual(rc, 2, out + err)
            self.assertIn("--case 123x456: no such case", out + err)
            self.assertIn("4096x1024", out + err)

    def test_a_case_found_in_one_of_the_inis_is_enough(self):
        rc, out, err = klab("--validate", "--plugin", "softmax,rmsnorm", "--case", "7x50257")
        self.assertEqual(rc, 0, out + err)


class SubcommandHelp(unittest.TestCase):
    def test_each_subcommand_has_its_own_help(self):
        for sub, own in (("report", "usage: klab report"), ("compare", "usage: klab compare"),
                         ("merge", "usage: klab merge")):
            for words in ([sub, "--help"], ["--help", sub], [sub, "-h"]):
                rc, out, err = run(*words)
                self.assertEqual(rc, 0, err)
                self.assertTrue(out.startswith(own), (words, out[:80]))
                self.assertNotIn("selection:", out)  # not the whole command line's help
        rc, out, _ = run("--help")
        self.assertIn("selection:", out)
        rc, out, _ = run("--run-id", "report", "--help")  # an option's value names no subcommand
        self.assertIn("selection:", out)

    def test_every_new_option_is_in_the_help_and_the_readme(self):
        _, out, _ = run("--help")
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        for opt in ("--shape", "--dim", "--json", "--verbose", "--quiet", "--fail-on"):
            self.assertIn(opt, out)
            self.assertTrue("`" + opt in readme, "README.md's table lacks " + opt)


class TuneValidate(unittest.TestCase):
    def test_one_line_a_case_unless_verbose(self):
        rc, out, err = klab("--tune", "--validate", "--plugin", "softmax")
        self.assertEqual(rc, 0, err)
        cases = [l for l in out.splitlines() if l.startswith("  case ")]
        self.assertEqual(len(cases), 7, out)
        self.assertLess(len(out.splitlines()), 20, out)
        self.assertRegex(cases[0], r"tune: \d+ rows; configurations: fused fp32 \d+")
        self.assertIn("every configuration: --verbose", out)
        rc, verbose, err = klab("--tune", "--validate", "--verbose", "--plugin", "softmax")
        self.assertEqual(rc, 0, err)
        self.assertGreater(len(verbose.splitlines()), 500)
        self.assertIn("its own choice", verbose)
        self.assertEqual(klab("--validate", "--verbose")[0], 2)  # only with --tune --validate


class Json(TempDir):
    def test_list(self):
        rc, out, err = klab("--list", "--json", "--plugin", "softmax,matmul_h200")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["schema"], "klab.list/1")
        by = {p["name"]: p for p in doc["plugins"]}
        self.assertEqual(set(by), {"softmax", "matmul_h200"})
        self.assertEqual(by["softmax"]["refused"], "")
        self.assertIn("fused", [p["name"] for p in by["softmax"]["profiles"]])
        self.assertIn("fp16", by["softmax"]["dtypes"])
        self.assertEqual(sorted(by["matmul_h200"]["dims"]), ["k", "m", "n"])
        self.assertEqual(doc["refused"], 0)

    def test_validate(self):
        rc, out, err = klab("--validate", "--json", "--plugin", "softmax", "--shape", "64x128")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["schema"], "klab.validate/1")
        (ini,) = doc["inis"]
        self.assertEqual((ini["plugin"], ini["status"]), ("softmax", "ok"))
        self.assertEqual([c["name"] for c in ini["cases"]], ["adhoc-64x128"])
        rc, out, err = klab("--validate", "--json", "--plugin", "softmax", "--case", "nope")
        self.assertEqual(rc, 2)
        doc = json.loads(out)
        self.assertIn("--case nope", doc["selection_error"])
        self.assertEqual(doc["invalid"], 1)

    def test_compare(self):
        a, b = fixture_run("rowsweep-rmsnorm-a"), fixture_run("rowsweep-rmsnorm-b")
        rc, out, err = run("compare", "--json", a, b)
        doc = json.loads(out)
        self.assertEqual(doc["schema"], "klab.compare/1")
        self.assertEqual(rc, 1 if doc["gate"]["failed"] else 0)
        self.assertEqual(len(doc["rows"]), sum(doc["totals"][v] for v in (
            "SAME", "FASTER", "SLOWER", "UNSURE", "NOT-COMPARED", "ONLY-IN-A", "ONLY-IN-B")))
        row = doc["rows"][0]
        self.assertEqual(row["plugin"], "rmsnorm")
        self.assertGreater(row["a"]["median_us"], 0)
        self.assertAlmostEqual(row["ratio"], row["b"]["median_us"] / row["a"]["median_us"])
        rc, out, _ = run("compare", "--json", "--allow-config-change", a, b)
        self.assertEqual(rc, 0 if not json.loads(out)["gate"]["failed"] else 1)

    def test_report(self):
        rc, out, err = run("report", "--json", "--out-dir", self.path("rep"), *ALL_RUNS, cwd=FIXTURES)
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["schema"], "klab.report/1")
        self.assertEqual(len(doc["runs"]), 6)
        self.assertEqual(doc["out_dir"], self.path("rep"))
        statuses = {d["name"]: d["status"] for d in doc["decisions"]}
        self.assertEqual(statuses["10_copy"], "Supported")
        self.assertIn("Rejected", [x["status"] for x in doc["experiments"]] + list(statuses.values()))
        red = [x for x in doc["experiments"] if x["name"] == "reduction"][0]
        self.assertEqual(red["claims"][0]["name"], "atomic_beats_torch")
        self.assertTrue(os.path.exists(self.path("rep", "decisions.md")))


class ReportOptions(TempDir):
    def report(self, *args, cwd=None):
        return run("report", *args, cwd=cwd or self.tmp)

    def test_fail_on_gates_on_the_decisions_statuses(self):
        _, out, _ = self.report("--json", "--out", self.tmp, *ALL_RUNS, cwd=FIXTURES)
        statuses = [d["status"] for d in json.loads(out)["decisions"]]
        for gate, bad in (("rejected", {"Rejected"}), ("caveated", {"Rejected", "Caveated"})):
            rc, out, err = self.report("--fail-on", gate, "--out", self.tmp, *ALL_RUNS, cwd=FIXTURES)
            self.assertEqual(rc, 1 if bad & set(statuses) else 0, (gate, statuses, err))
            rc, out, _ = self.report("--json", "--fail-on", gate, "--out", self.tmp, *ALL_RUNS, cwd=FIXTURES)
            self.assertEqual(json.loads(out)["gate"]["failed"], rc == 1)
        self.assertIn("Caveated", statuses)  # so the caveated gate above failed
        self.assertEqual(run("report", "--fail-on", "maybe")[0], 2)
        self.assertEqual(klab("--validate", "--fail-on", "rejected")[0], 2)

    def test_quiet_prints_the_decisions_alone(self):
        rc, out, err = self.report("--quiet", "--out", self.tmp, fixture_run("copy"), cwd=FIXTURES)
        self.assertEqual(rc, 0, err)
        self.assertIn("decisions over 1 run", out)
        self.assertNotIn("median", out)  # no table
        _, loud, _ = self.report("--out", self.tmp, fixture_run("copy"), cwd=FIXTURES)
        self.assertIn("median", loud)

    def test_the_report_goes_under_out_not_into_the_run(self):
        run_copy = self.path("archive", "copy")
        shutil.copytree(fixture_run("copy"), run_copy)
        os.chmod(run_copy, 0o555)  # a read-only archive stays as it was
        try:
            rc, out, err = self.report("--experiments", os.path.join(FIXTURES, "experiments"), run_copy)
        finally:
            os.chmod(run_copy, 0o755)
        self.assertEqual(rc, 0, out + err)
        self.assertTrue(os.path.exists(self.path("out", "reports", "copy", "decisions.md")))
        self.assertFalse(os.path.exists(os.path.join(run_copy, "report")))

    def test_experiments_are_added_to_the_shipped_ones(self):
        shutil.copytree(os.path.join(FIXTURES, "experiments"), self.path("experiments"))
        extra = self.path("extra")
        os.makedirs(os.path.join(extra, "decisions"))
        with open(os.path.join(FIXTURES, "experiments", "copy_rate.exp.ini"), encoding="utf-8") as f:
            text = f.read()
        title = [l for l in text.splitlines() if l.startswith("title = ")][0]
        with open(os.path.join(extra, "copy_rate.exp.ini"), "w", encoding="utf-8") as f:
            f.write(text.replace(title, "title = Copy rate, as the extra folder says"))
        with open(os.path.join(extra, "decisions", "95_extra.ini"), "w", encoding="utf-8") as f:
            f.write("[decision]\ndomain = Extra\ntitle = Extra call\ncall = Judge the copy again.\n"
                    "experiments = copy_rate, reduction\n")
        rc, out, err = self.report("--json", "--experiments", extra, fixture_run("copy"))
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["experiment_dirs"], ["experiments", extra])
        names = [d["name"] for d in doc["decisions"]]
        self.assertIn("10_copy", names)  # the shipped decisions stay
        self.assertEqual(names[-1], "95_extra")  # and the added one, in file-name order
        exps = {x["name"]: x for x in doc["experiments"]}
        self.assertIn("reduction", exps)
        self.assertEqual(exps["copy_rate"]["title"], "Copy rate, as the extra folder says")
        self.assertEqual(exps["copy_rate"]["file"], os.path.join(extra, "copy_rate.exp.ini"))
        said = "experiment copy_rate: %s replaces experiments/copy_rate.exp.ini\n" % os.path.join(extra, "copy_rate.exp.ini")
        self.assertIn(said, err)
        rc, out, err = self.report("--quiet", "--experiments", extra, fixture_run("copy"))
        self.assertEqual(rc, 0, err)
        self.assertIn("\n" + said + "\ndecisions over 1 run (experiments, " + extra + "):\n", out)

    def test_nested_runs_without_a_cap_each_labelled_apart(self):
        # 40 runs, three folders deep, every one's meta.ini id the same ("copy")
        for i in range(40):
            dst = self.path("archive", "set%d" % (i % 4), "runs", "r%02d" % i)
            shutil.copytree(fixture_run("copy"), dst)
            if i % 2:
                meta = os.path.join(dst, "meta.ini")
                with open(meta, encoding="utf-8") as f:
                    text = f.read()
                with open(meta, "w", encoding="utf-8") as f:
                    f.write(text.replace("commit = f44464a", "commit = c%06d" % i))
        rc, out, err = self.report("--json", "--experiments", os.path.join(FIXTURES, "experiments"),
                                   self.path("archive"))
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["out_dir"], "out/reports/archive")  # named after the RUN given
        labels = [r["label"] for r in doc["runs"]]
        self.assertEqual(len(labels), 40)
        self.assertEqual(len(set(labels)), 40, labels)
        args = [self.path("archive", "set%d" % (i % 4), "runs", "r%02d" % i) for i in range(40)]
        rc, out, err = self.report("--json", "--experiments", os.path.join(FIXTURES, "experiments"), *args)
        self.assertEqual(rc, 0, err)  # more than 32 runs named on the command line
        self.assertEqual(len(json.loads(out)["runs"]), 40)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
