"""tools/decode_probes.py (klab/probes.py) on a run folder and probes made here, every figure worked by
hand with klab's statistics (libklab_bench: quantiles interpolate between closest ranks, as every klab
row's do); and the median's interval against core/interval.c's ranks (tests/unit/stats/test_interval.c's
hand-worked values), since the ratios' intervals stand on it.

    python3 tests/python/test_decode_probes.py [BUILD]     (BUILD: the folder with libklab_bench.so)
"""
import contextlib
import gzip
import io
import os
import sys
import tempfile
import unittest

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools")
BUILD = sys.argv[1] if len(sys.argv) > 1 else None
sys.path.insert(0, TOOLS)
from klab import bench, probes  # noqa: E402

bench.use_build(BUILD)
median_ci = bench.median_interval

HEADER = "run_id,plugin,case,shape,dtype,profile,status,reps,median_ms,p95_ms,p99_ms,max_ms,samples_file"


def write(path, text, gz=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with (gzip.open(path, "wt") if gz else open(path, "w")) as f:
        f.write(text)


def samples(us):
    """step i % 4 for sample i: a 4-step sequence"""
    return "step,ms\n" + "".join(f"{i % 4},{u / 1e3}\n" for i, u in enumerate(us))


class Fixture:
    def __init__(self, root):
        self.run = os.path.join(root, "run")
        self.probes = os.path.join(root, "probes", "decode_replay.probes")
        # graph 100..119 us, graph_pdl 50..69 us (20 samples each, in order)
        write(os.path.join(self.run, "decode_replay.csv"), HEADER + "\n" +
              "r,decode_replay,c,,fp16,graph,passed,20,0.1095,0.118,0.119,0.119,decode_replay.samples/c.fp16.graph.csv\n"
              "r,decode_replay,c,,fp16,graph_pdl,passed,20,0.0595,0.068,0.069,0.069,"
              "decode_replay.samples/c.fp16.graph_pdl.csv\n")
        write(os.path.join(self.run, "decode_replay.samples", "c.fp16.graph.csv"), samples(range(100, 120)))
        write(os.path.join(self.run, "decode_replay.samples", "c.fp16.graph_pdl.csv"), samples(range(50, 70)))
        # 22 run()s of graph: 2 before the timed 20, so ring seq 19..21 are samples 17..19 (steps 1..3)
        write(os.path.join(self.probes, "c.fp16.enqueue.csv.gz"),
              "profile,run,enqueue_us\n" + "".join(f"graph,{i},{1 + i % 2}.000\n" for i in range(22)), gz=True)
        write(os.path.join(self.probes, "c.fp16.kernels.csv"),
              "profile,seq,step,kernel,layer,name,start_ns,end_ns,gap_ns\n"
              "graph,19,1,0,0,qkv,0,15000,0\n"
              "graph,19,1,1,0,attn,16000,25000,1000\n"
              "graph,20,2,0,0,qkv,0,10000,0\n"
              "graph,20,2,1,0,attn,12000,20000,2000\n"
              "graph,21,3,0,0,qkv,0,30000,0\n"
              "graph,21,3,1,0,attn,33000,40000,3000\n")


class DecodeProbes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.fx = Fixture(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, *args):
        buf, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
            rc = probes.main(list(args))
        return rc, buf.getvalue(), err.getvalue()

    def test_median_ci_ranks_as_core(self):
        for n, j, k in ((6, 1, 6), (10, 2, 9), (20, 6, 15)):
            self.assertEqual(median_ci(list(range(1, n + 1))), (j, k), n)
        self.assertIsNone(median_ci(list(range(5))))

    def test_ratio_interval(self):
        # medians (between the 10th and 11th of 20) 109.5 and 59.5; at 97.5 % n = 20 takes ranks 5..16
        # (P(B <= 4) = 6196/2^20 = 0.0059 <= 0.0125 < P(B <= 5) = 0.0207): 104..115 and 54..65
        self.assertEqual(median_ci(list(range(1, 21)), 0.975), (5, 16))
        rc, out, _ = self.out(self.fx.run)
        self.assertEqual(rc, 0)
        self.assertIn(f"| c | fp16 | graph / graph_pdl | {109.5 / 59.5:.4f} | {104 / 65:.4f}-{115 / 54:.4f} | +50.00 |",
                      out)
        self.assertIn("| c | fp16 | graph | 20 | 109.50 | 118.00 | 119.00 | 119.00 | 1.0776 | passed |", out)

    def test_steps(self):
        rc, out, _ = self.out(self.fx.run, "--lens", "c=10,20,30,40")
        self.assertEqual(rc, 0)
        # graph's step s holds 100+s, 104+s, ..., 116+s: medians 108+s (the 3rd of 5); the one sample above
        # p95 (118.05: 0.05 of the way from the 19th of 20 to the 20th) is 119, on step 3; the first and last
        # 5 samples' medians
        self.assertIn("| c | graph | 4 | 108.00 (0) | 111.00 (3) | 3: 1 of 1 | 0.850 | 102.00 / 117.00 |", out)
        # by KV length: row 1 (20) holds 101, 105, ..., 117: p50 109, p95 113 + 0.8 * 4 = 116.2 (graph_pdl
        # 50 lower); 1 us per 10 positions = 100 us per 1000; p95 - p50 of all 20: 118.05 - 109.5; each
        # sample minus its row's median is -8, -4, 0, 4, 8 on every row (4 each): p95 - p50 = 8 - 0
        self.assertIn("| 1 | 20 | 109.00 | 116.20 | 59.00 | 66.20 |", out)
        self.assertIn("| graph | 100.000 | 8.55 | 8.00 |", out)

    def test_kernels_pairing_enqueue(self):
        rc, out, _ = self.out(self.fx.run, "--probes", self.fx.probes)
        self.assertEqual(rc, 0)
        # spans 15, 10, 30 (qkv) and 9, 8, 7 (attn); attn's gaps 1, 2, 3; steps 25, 20 and 40 us long. Of
        # three values p95 is 0.9 of the way from the 2nd to the 3rd: 15 + 0.9 * 15, 8.9, 2.9, 25 + 0.9 * 15
        self.assertIn("| graph | qkv | 3 | 15.00 | 28.50 | - | - | 0.00 |", out)
        self.assertIn("| graph | attn | 3 | 8.00 | 8.90 | 2.00 | 2.90 | 2.00 |", out)
        self.assertIn("| graph | **step** | 3 | 25.00 | 38.50 | 2.00 (all gaps) | 2.90 | |", out)
        # the p50 step is the 25 us one (within p45 24.5 .. p55 26.5), the p95 step the 40 us one (at or
        # above 38.5): qkv moved +15, attn -2, its gap +2
        self.assertIn("| graph | qkv | 15.00 | 30.00 | +15.00 | 0.00 | 0.00 | +0.00 |", out)
        self.assertIn("| graph | attn | 9.00 | 7.00 | -2.00 | 1.00 | 3.00 | +2.00 |", out)
        self.assertIn("| graph | **step** (1 and 1 steps) | 25.00 | 40.00 | | | | |", out)
        # seq 19..21 -> samples 17..19 (117, 118, 119 us at steps 1..3): every cursor agrees; sample minus
        # span 92, 98, 79 (p95 92 + 0.9 * 6); the correlation of (25, 20, 40) with (117, 118, 119) is
        # 15 / sqrt(216.67 * 2); the enqueue times are eleven 1s and eleven 2s: p50 halfway, 1.5
        self.assertIn("| graph | 22 | 20 | 3 | 3 | 92.00 | 97.40 | 0.721 |", out)
        self.assertIn("| graph | 22 | 1.50 | 2.00 | 2.00 |", out)

    def test_refusals(self):
        rc, _, err = self.out(self.fx.run, "--lens", "c=10,x")
        self.assertEqual(rc, 2)
        self.assertIn("--lens c=10,x", err)
        rc, _, err = self.out(self.fx.run, "--lens", "nocase=1,2")
        self.assertEqual(rc, 2)
        self.assertIn("no samples of that case", err)
        rc, _, err = self.out(os.path.join(self.tmp.name, "missing"))
        self.assertEqual(rc, 2)
        self.assertIn("no decode_replay*.csv", err)
        rc, _, err = self.out(self.fx.run, self.fx.run)
        self.assertEqual(rc, 2)
        self.assertIn("in an earlier folder too", err)
        rc, _, err = self.out(self.fx.run, "--pairs", "graph")
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
