"""tools/klab/ and klab agree, without torch or a GPU: an INI is accepted or refused as klab --validate
does (tests/fixtures/ini/good_bom.ini read, every tests/fixtures/ini/bad_*.ini refused with klab's own file:line
message), the statistics are klab's (hand-worked values of tests/unit/stats/test_interval.c and stats.c's
interpolation), a row the Python side writes is one klab reads back and writes again byte for byte
(klab merge), a plugin is described as klab --list loads it, torch_rows.py's --units, --quick and
--phases-out do what the command line promises, and a plugin's PyTorch module (<plugin>_torch.py beside
its .so) is found, loaded without torch and refused, naming its file, where it breaks the contract.

    python3 tests/python/test_klab_package.py BUILD     (BUILD: the folder with klab and libklab_bench.so)
"""
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from klab import bench, ini, phases, rows, torch_cases, torch_module, units  # noqa: E402

bench.use_build(BUILD)
KLAB = os.path.join(BUILD, "klab")
INI = os.path.join(ROOT, "tests", "fixtures", "ini")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def klab(*args):
    return subprocess.run([KLAB, *args], capture_output=True, text=True)


def torch_rows(*args):
    """tools/torch_rows.py in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = rows.main(["--build", BUILD, *args])
    return rc, out.getvalue(), err.getvalue()


class Import(unittest.TestCase):
    def test_no_torch(self):
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import klab.rows, klab.decode, klab.probes, "
                "klab.torch_bench; sys.exit('torch' in sys.modules)")
        r = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "tools")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, "importing the package imported torch " + r.stderr)


class Inis(unittest.TestCase):
    def test_bom_accepted(self):
        i = ini.Ini(os.path.join(INI, "good_bom.ini"))
        self.assertEqual((i.plugin, [c.name for c in i.cases]), ("vector_add", ["1024"]))
        self.assertEqual((i.cases[0].dims, i.cases[0].dtypes, i.cases[0].line), ((1024,), ["fp32"], 5))

    def test_bad_refused_as_klab(self):
        names = sorted(n for n in os.listdir(INI) if n.startswith("bad_") and n.endswith(".ini"))
        self.assertGreater(len(names), 40)
        for name in names:
            path = os.path.join(INI, name)
            said = [line[len("INVALID "):] for line in klab("--validate", "--config", path).stdout.splitlines()
                    if line.startswith("INVALID ")]
            with self.assertRaises(ini.IniError, msg=name) as e:
                ini.Ini(path)
            self.assertEqual([str(e.exception)], said, name)
            self.assertRegex(str(e.exception), r"^" + path.replace(".", r"\.") + r"(:\d+)?: ")

    def test_every_key_resolved(self):
        i = ini.Ini(os.path.join(INI, "good_full.ini"))
        doc = i.file.document()
        c = i.cases[0]
        self.assertEqual(c.sampling(), {k: doc["cases"][0][k] for k in ("warmup", "min_reps", "max_reps",
                                                                          "precision", "budget_ms")})
        quick = c.sampling(quick=True, budget_ms=0)
        self.assertLessEqual(quick["budget_ms"], 200)
        self.assertEqual(c.sampling(quick=True, budget_ms=750)["budget_ms"], 750)  # --budget-ms after the rule

    def test_a_shape_becomes_a_case(self):
        i = ini.Ini(os.path.join(ROOT, "ini", "softmax.ini"))
        (c,) = i.select(["3x4096"])
        self.assertEqual((c.dims, c.line, c.dtypes), ((3, 4096), 0, i.cases[0].dtypes))
        with self.assertRaisesRegex(ini.IniError, "no case 'nope', and 'nope' is not a shape"):
            i.select(["nope"])
        self.assertEqual(i.select(["nope", "3x4096"], ini_only=True), [c])


class Statistics(unittest.TestCase):
    def test_interval_ranks_as_core(self):
        # tests/unit/stats/test_interval.c's ranks: n = 6 -> 1..6, 10 -> 2..9, 20 -> 6..15; none below 6
        for n, j, k in ((6, 1, 6), (10, 2, 9), (20, 6, 15)):
            self.assertEqual(bench.median_interval(range(1, n + 1)), (j, k), n)
        self.assertIsNone(bench.median_interval(range(5)))
        self.assertEqual(bench.median_interval(range(1, 21), 0.975), (5, 16))

    def test_quantiles_interpolate(self):
        xs = [float(x) for x in range(20, 0, -1)]  # any order
        self.assertEqual(bench.median(xs), 10.5)
        self.assertAlmostEqual(bench.quantile(xs, 0.95), 19.05, places=12)
        s = bench.stats(xs)
        self.assertEqual((s["n"], s["median_lo"], s["median_hi"], s["min"], s["max"]), (20, 6, 15, 1, 20))
        self.assertAlmostEqual(s["p99"], 19.81, places=12)
        lo, hi = bench.ratio_interval([2 * x for x in xs], xs)
        self.assertEqual((lo, hi), (10 / 16, 32 / 5))  # each median at 97.5 %: ranks 5..16


class Csv(unittest.TestCase):
    def test_row_is_klabs(self):
        self.assertEqual(bench.row_schema(), 3)
        with tempfile.TemporaryDirectory() as d:
            run, out = os.path.join(d, "r1"), os.path.join(d, "merged")
            w = bench.CsvWriter(os.path.join(run, "decode_replay_torch.csv"))
            w.row({"run_id": "t", "plugin": "decode_replay", "case": "c", "dtype": "fp16", "profile": "torch_eager",
                   "l2": "cold", "launch": "steps", "batch": 1, "status": "passed", "flags": "external",
                   "bytes": 2e6, "seed": 7, "rel_l2_err": 1e-4, "tolerance": 4e-3, "gpu": 0, "gpu_name": "X"},
                  [float(x) for x in range(1, 21)])
            for bad in ({"no_such": "1"}, {"median_ms": "1"}, {"bytes": "12x"}, {"status": "great"}):
                with self.assertRaises(bench.BenchError, msg=bad):
                    w.row(bad)
            w.close()
            with open(os.path.join(run, "meta.ini"), "w") as f:
                f.write(f"[run]\nid = r1\ncommit = abc1234\ncsv_schema = {bench.row_schema()}\n")
            ours = read(os.path.join(run, "decode_replay_torch.csv")).splitlines()
            self.assertEqual(ours[0], ",".join(bench.row_columns()))
            r = klab("merge", out, run)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(read(os.path.join(out, "decode_replay_torch.csv")).splitlines(), ours)
            cells = dict(zip(ours[0].split(","), ours[1].split(",")))
            self.assertEqual((cells["median_ms"], cells["median_lo"], cells["median_hi"], cells["reps"],
                              cells["gbps"], cells["schema"]), ("10.5", "6", "15", "20", "0.190476", "3"))


class Plugins(unittest.TestCase):
    def test_described_as_klab_loads_it(self):
        so = os.path.join(BUILD, "plugins", "vector_add.so")
        if not os.path.exists(so):
            self.skipTest(f"{so} not built")
        d = bench.describe(so)
        self.assertEqual(d["name"], "vector_add")
        self.assertIn("fp32", d["dtypes"])
        self.assertIn("op", d["params"])
        i = ini.Ini(os.path.join(INI, "good_bom.ini"))
        w = i.cases[0].work(so, "fp32")
        self.assertEqual((w["tolerance"], w["steps"]), (1e-5, 1))
        with self.assertRaisesRegex(bench.BenchError, "nope.so"):
            bench.describe(os.path.join(BUILD, "plugins", "nope.so"))


class CommandLine(unittest.TestCase):
    def units_file(self, d, text):
        path = os.path.join(d, "units.tsv")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_units(self):
        with tempfile.TemporaryDirectory() as d:
            path = self.units_file(d, "4096x4096\tfp16\n\nragged\tbf16\n")
            rc, out, err = torch_rows("--dry-run", "--plugins", "softmax,rmsnorm", "--units", path)
            self.assertEqual(rc, 0, err)
            listed = [line.split()[:3] for line in out.splitlines() if line.startswith("  ")]
            self.assertIn(["4096x4096", "4096x4096", "fp16"], listed)
            self.assertIn(["ragged", "1024x4093", "bf16"], listed)
            self.assertEqual(len([u for u in listed if u[0] == "4096x4096"]), 2)  # one a plugin that has it
            self.assertEqual(len(listed), 3, out)
            for text, want in (("nosuch\tfp16\n", f"{path}:1: no case 'nosuch' in "),
                               ("4096x4096\tfp8e4m3\n", f"{path}:1: case '4096x4096' has no dtype 'fp8e4m3'"),
                               ("ragged fp16\n", f"{path}:1: expected case<TAB>dtype")):
                self.units_file(d, text)
                rc, _, err = torch_rows("--dry-run", "--plugins", "softmax", "--units", path)
                self.assertEqual(rc, 2)
                self.assertIn(want, err)

    def test_quick(self):
        rc, out, err = torch_rows("--dry-run", "--plugins", "softmax", "--quick")
        self.assertEqual(rc, 0, err)
        self.assertIn("--quick: klab's quick rule, every row flagged quick", out)
        self.assertRegex(out, r"4096x4096 +4096x4096 +fp32,fp16,bf16 +50 ms  torch\.softmax, torch\.compile .*"
                              r"; quick: warmup 2, reps 10-100, precision 0\.005")
        rc, out, err = torch_rows("--dry-run", "--plugins", "softmax", "--quick", "--budget-ms", "50")
        self.assertRegex(out, r"4096x4096 +4096x4096 +fp32,fp16,bf16 +50 ms")

    def test_phases_out(self):
        class FakeBench:
            def phase_ms(self, name):
                return {"setup": 1.0, "reference": 2.0, "verify": 3.0, "timing": 4.0, "teardown": 0.5}[name]

        p = phases.Phases()
        p.add(FakeBench(), compile_ms=1500.25)
        p.add(FakeBench())
        p.units = 3
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "phases.ini")
            p.write(path)
            text = read(path)
        self.assertEqual(text, "[phases]\ncompile_ms = 1500.250\nreference_ms = 4.000\nverify_ms = 6.000\n"
                               "timing_ms = 8.000\nsetup_ms = 2.000\nteardown_ms = 1.000\nunits = 3\n")

    def test_run_without_gpu(self):
        """A run's path through rows.py with libklab_bench's GPU part and torch stood in for: the units of
        --units begun in order, each callable added (compiled ones said so), --quick reaching every
        opened plugin, and --phases-out summing each plugin's phases and the compiles."""
        calls = []

        class FakeTorchBench:
            def __init__(self, so, csv_path, run_id, seed, mode, device, quick):
                calls.append(("open", os.path.basename(so), quick))
                self.compile_ms, self.bench = 0.0, self

            def write_meta(self, out, entries):
                calls.append(("meta", entries["torch.version"]))

            def begin_case(self, f, index, dtype, budget_ms):
                calls.append(("begin", index, dtype))
                return True

            def tensor(self, name, shape):
                return name

            def external(self, label, fn, copy=None, compiled=False):
                calls.append(("external", label, compiled))
                self.compile_ms += 10 if compiled else 0

            def finish(self):
                pass

            def phase_ms(self, name):
                return {"setup": 1, "reference": 2, "verify": 3, "timing": 4, "teardown": 5}[name]

            def close(self):
                calls.append(("close",))

        fake = types.SimpleNamespace(__version__="9.9", version=types.SimpleNamespace(cuda="13.0"),
                                     compile=lambda fn, dynamic, mode: fn,
                                     cuda=types.SimpleNamespace(set_device=lambda d: None,
                                                                get_device_name=lambda d: "Fake GPU"))
        with tempfile.TemporaryDirectory() as d, mock.patch.object(rows, "TorchBench", FakeTorchBench), \
                mock.patch.object(torch_cases, "torch", fake), mock.patch.object(torch_cases, "need_torch", lambda: fake), \
                mock.patch.object(rows, "compare", lambda path: 0):
            so = []
            for p in ("softmax", "rmsnorm"):
                open(os.path.join(d, p + ".so"), "w").close()
                shutil.copy(os.path.join(ROOT, "plugins", p, p + "_torch.py"), d)  # its module, beside it
                so += ["--so", f"{p}={os.path.join(d, p + '.so')}"]
            path = self.units_file(d, "4096x4096\tfp16\nragged\tbf16\n")
            rc, out, err = torch_rows(*so, "--plugins", "softmax,rmsnorm", "--units", path, "--quick",
                                      "--phases-out", os.path.join(d, "phases.ini"), "--out", os.path.join(d, "o"))
            self.assertEqual(rc, 0, err)
            text = read(os.path.join(d, "phases.ini"))
        self.assertEqual(calls, [
            ("open", "softmax.so", True), ("meta", "9.9"), ("begin", 1, "fp16"),
            ("external", "torch.softmax", False), ("external", "torch.compile", True), ("close",),
            ("open", "rmsnorm.so", True), ("begin", 0, "fp16"), ("external", "torch.compile", True),
            ("external", "F.rms_norm", False), ("external", "torch.eager", False), ("begin", 4, "bf16"),
            ("external", "torch.compile", True), ("external", "F.rms_norm", False), ("external", "torch.eager", False),
            ("close",)])
        self.assertEqual(text, "[phases]\ncompile_ms = 30.000\nreference_ms = 4.000\nverify_ms = 6.000\n"
                               "timing_ms = 8.000\nsetup_ms = 2.000\nteardown_ms = 10.000\nunits = 3\n")

    def test_units_read(self):
        with tempfile.TemporaryDirectory() as d:
            path = self.units_file(d, "a\tfp16\na\tbf16\n")
            self.assertEqual(units.read_units(path), {("a", "fp16"): 1, ("a", "bf16"): 2})


GOOD = """from klab.torch_cases import EAGER, Spec
KLAB_TORCH = 1
PLUGIN = "toy"
torch = None


def neg(x):
    return torch.neg(x)


def spec(c):
    return Spec({"x": c.dims}, lambda t: (t["x"],), [("torch.neg", neg, EAGER)])
"""


class Modules(unittest.TestCase):
    """The contract of tools/klab/torch_module.py, on modules written here beside a stand-in toy.so."""

    def write(self, d, text, plugin):
        with open(os.path.join(d, plugin + "_torch.py"), "w") as f:
            f.write(text)

    def load(self, d, text, plugin="toy"):
        self.write(d, text, plugin)
        torch_module._loaded.clear()
        return torch_module.load(os.path.join(d, plugin + ".so"), plugin)

    def case(self, text="[experiment]\nplugin = toy\n[case 4x8]\n"):
        path = os.path.join(self.d, "toy.ini")
        with open(path, "w") as f:
            f.write(text)
        return ini.Ini(path).cases[0]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_good_module(self):
        m = self.load(self.d, GOOD)
        s = torch_module.spec_of(m, self.case())
        self.assertEqual(([op[0] for op in s.ops], s.tensors), (["torch.neg"], {"x": (4, 8)}))
        self.assertNotIn("torch", sys.modules)
        self.assertIsNone(torch_module.load(os.path.join(self.d, "other.so"), "other"))  # none: no PyTorch rows
        self.assertEqual(torch_module.plugins_in(self.d), ["toy"])

    def test_declarations_refused(self):
        for old, new, why in (("KLAB_TORCH = 1", "KLAB_TORCH = 2", "KLAB_TORCH = 2; this klab reads version 1"),
                              ("KLAB_TORCH = 1", "", "no KLAB_TORCH"),
                              ('PLUGIN = "toy"', 'PLUGIN = "softmax"', "PLUGIN = 'softmax', but it lies beside toy.so"),
                              ("def spec(c):", "def spec_(c):", "no function spec(case)"),
                              ("torch = None", "torch = None\nSIZED_BY_DIMS = 1", "SIZED_BY_DIMS must be True or False"),
                              ("torch = None", "torch = None +", "cannot be loaded: SyntaxError")):
            with self.assertRaises(torch_module.ModuleError, msg=why) as e:
                self.load(self.d, GOOD.replace(old, new))
            self.assertIn(why, str(e.exception))
            self.assertTrue(str(e.exception).startswith(os.path.join(self.d, "toy_torch.py") + ": "), str(e.exception))

    def test_specs_refused(self):
        c = self.case()
        for old, new, why in (('[("torch.neg", neg, EAGER)]', '[("torch.neg", neg, "jit")]', "how 'jit' is none of"),
                              ('[("torch.neg", neg, EAGER)]', '[("torch.neg", neg, EAGER), ("torch.neg", neg, EAGER)]',
                               "label 'torch.neg' twice"),
                              ('"torch.neg"', '"torch neg"', "is not a name"),
                              ('[("torch.neg", neg, EAGER)]', "[]", "no callables"),
                              ('{"x": c.dims}', '{"x": (0,)}', "tensor 'x': shape (0,)"),
                              ("return Spec(", "return None and Spec(", "returned NoneType, not a Spec"),
                              ("def spec(c):\n", "def spec(c):\n    c.params['nope']\n", "KeyError")):
            m = self.load(self.d, GOOD.replace(old, new))
            with self.assertRaises(torch_module.ModuleError, msg=why) as e:
                torch_module.spec_of(m, c)
            self.assertIn(f"toy_torch.py: spec() of case '4x8': ", str(e.exception))
            self.assertIn(why, str(e.exception))

    def test_sized_by_dims(self):
        c = self.case("[experiment]\nplugin = toy\n[case g]\ndim.m = 4\n")
        self.assertEqual(torch_module.spec_of(self.load(self.d, GOOD), c).skip, "no shape (sized by dim.* alone)")
        m = self.load(self.d, GOOD.replace("torch = None", "torch = None\nSIZED_BY_DIMS = True")
                      .replace('{"x": c.dims}', '{"x": (c.named["m"],)}'))
        self.assertEqual(torch_module.spec_of(m, c).tensors, {"x": (4,)})

    def test_torch_bound_when_imported(self):
        m = self.load(self.d, GOOD)
        fake = types.SimpleNamespace(neg=lambda x: -x)
        with mock.patch.object(torch_cases, "torch", fake):
            torch_cases._set(m)
        self.assertEqual(m.neg(3), -3)

    def test_every_plugin_module_keeps_the_contract(self):
        """Each in-tree module loads without torch and answers every case of its INI."""
        names = sorted(n for n in os.listdir(os.path.join(ROOT, "plugins"))
                       if os.path.exists(os.path.join(ROOT, "plugins", n, n + "_torch.py")))
        self.assertEqual(names, ["fp8_gemm", "fused_gated_mlp", "matmul_h200", "reduction", "rmsnorm",
                                 "rmsnorm_rope", "softmax", "swiglu", "vector_add"])
        for n in names:
            torch_module._loaded.clear()
            m = torch_module.load(os.path.join(ROOT, "plugins", n, n + ".so"), n)
            for c in ini.Ini(os.path.join(ROOT, "ini", n + ".ini")).cases:
                torch_module.spec_of(m, c)
        self.assertNotIn("torch", sys.modules)

    def test_dry_run_says_where_torch_is(self):
        rc, out, err = torch_rows("--dry-run", "--plugins", "softmax")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"\n# torch: (not installed|installed) for ")
        self.assertIn(os.path.join("plugins", "softmax_torch.py") + ")", out)  # the module beside softmax.so
        with tempfile.TemporaryDirectory() as d:
            self.load(d, GOOD.replace('"toy"', '"vector_add"').replace("torch.neg", "torch.neg2"), "vector_add")
            rc, out, err = torch_rows("--dry-run", "--ini", os.path.join(INI, "good_bom.ini"),
                                      "--so", f"vector_add={os.path.join(d, 'vector_add.so')}")
            self.assertEqual(rc, 0, err)
            self.assertIn("torch.neg2", out)  # the module found beside --so's library, not the build's
            os.remove(os.path.join(d, "vector_add_torch.py"))
            rc, out, err = torch_rows("--dry-run", "--ini", os.path.join(INI, "good_bom.ini"),
                                      "--so", f"vector_add={os.path.join(d, 'vector_add.so')}")
            self.assertIn(f"plugin 'vector_add' has no PyTorch module ({d}/vector_add_torch.py): skipped", out)
            self.write(d, GOOD.replace('"toy"', '"vector_add"').replace("KLAB_TORCH = 1", ""), "vector_add")
            torch_module._loaded.clear()
            rc, out, err = torch_rows("--dry-run", "--ini", os.path.join(INI, "good_bom.ini"),
                                      "--so", f"vector_add={os.path.join(d, 'vector_add.so')}")
            self.assertEqual(rc, 2)
            self.assertIn(f"torch_rows: {d}/vector_add_torch.py: no KLAB_TORCH", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
