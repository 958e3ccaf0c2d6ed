"""tools/torch_rows.py's part of a PyTorch folder's meta.ini (klab/bench.py, klab/meta.py), without torch
or a GPU: the entries reach kb_write_meta as the C side reads them (SECTION.KEY and value arrays, their
count), klab's own run's meta.ini (klab --with-torch runs the script in its folder) is told from one the
scripts wrote, and a dry run writes no folder at all.

    python3 tests/python/test_torch_meta.py [BUILD]     (BUILD: the folder with libklab_bench.so)
"""
import contextlib
import ctypes
import io
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from klab import bench, meta  # noqa: E402


class FakeLib:
    """kb_write_meta and kb_error as libklab_bench answers them, the call recorded."""

    def __init__(self, rc):
        self.rc, self.calls = rc, []

    def kb_write_meta(self, s, folder, command, schema, keys, values, n):
        self.calls.append((s, folder, command, schema, [keys[i] for i in range(n)], [values[i] for i in range(n)]))
        return self.rc

    def kb_error(self, s):
        return b"kb_write_meta: meta.ini entry 'x' is not SECTION.KEY"


@contextlib.contextmanager
def opened(lib):
    """A bench.Bench on lib in place of libklab_bench (no kb_open: no GPU here)."""
    saved, bench._lib = bench._lib, lib
    s = bench.Bench.__new__(bench.Bench)
    s.s = 42
    try:
        yield s
    finally:
        bench._lib = saved


class WriteMeta(unittest.TestCase):
    def test_entries_reach_the_call(self):
        lib = FakeLib(0)
        with opened(lib) as s:
            s.write_meta("out/r", {"torch.version": "2.9.0", "torch.steps": 1000}, csv_schema=2)
        (s, folder, command, schema, keys, values), = lib.calls
        self.assertEqual((s, folder, schema), (42, b"out/r", 2))
        self.assertEqual(keys, [b"torch.version", b"torch.steps"])
        self.assertEqual(values, [b"2.9.0", b"1000"])
        self.assertIn(os.path.basename(sys.argv[0]).encode(), command)

    def test_a_refusal_is_said_and_the_rows_go_on(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), opened(FakeLib(-1)) as s:
            s.write_meta("out/r", {"x": "1"})
        self.assertIn("is not SECTION.KEY", err.getvalue())

    def test_argtypes_match_the_header(self):
        so = os.path.join(BUILD, "libklab_bench.so")
        if not os.path.exists(so):
            self.skipTest(f"{so} not built")
        bench.use_build(BUILD)
        f = bench.lib().kb_write_meta
        self.assertEqual(f.argtypes, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                      ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_int])


class Folder(unittest.TestCase):
    def test_whose_meta(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertFalse(meta.meta_is_klabs(d))  # none: this script writes one
            with open(os.path.join(d, "meta.ini"), "w") as f:
                f.write("[run]\nid = r\ncommand = klab --with-torch\n\n[device]\nname = H200\n")
            self.assertTrue(meta.meta_is_klabs(d))
            with open(os.path.join(d, "meta.ini"), "a") as f:
                f.write("\n[torch]\nversion = 2.9.0\n")
            self.assertFalse(meta.meta_is_klabs(d))  # an earlier run of the scripts': replaced

    def test_dry_run_writes_no_folder(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "torch")
            r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "torch_rows.py"), "--dry-run",
                                "--build", BUILD, "--plugins", "softmax", "--out", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
