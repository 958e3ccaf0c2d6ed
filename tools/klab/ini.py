"""klab's INI files as the Python tools see them: every case as klab's own reader resolved it
(libklab_bench's kb_ini_json: [defaults] folded in, shapes parsed, a refusal with klab's "path:line:
why"). Nothing here reads the file; the cases are plain attributes for the PyTorch side, and the C
handle stays with the Ini, so kb_begin_case begins a case as klab would run it."""
import math
import os

from . import bench


class IniError(Exception):
    pass


class Case:
    """One case of an INI, every key as klab resolved it."""

    def __init__(self, ini, index, d):
        self.ini, self.index = ini, index
        self.name, self.line = d["name"], d["line"]
        self.shape = d["shape"]  # "" for a case sized by dim.NAME alone
        self.dims = tuple(d["dims"]) or None
        self.dtypes = d["dtypes"]
        self.profiles = d["profiles"]  # []: every profile of the plugin
        self.params = d["params"]  # param.NAME -> its text, in the file's order
        self.named = d["named"]  # dim.NAME -> its value
        self.budget_ms = d["budget_ms"]
        self.steps = d["steps"] or None  # None: the plugin's own
        self.config = d["config"] or None
        self.lines = d["lines"]

    @property
    def rows(self):
        return math.prod(self.dims[:-1])

    @property
    def cols(self):
        return self.dims[-1]

    def sampling(self, quick=False, budget_ms=0):
        """What the case is timed with by kb_begin_case (kb_ini_sampling)."""
        return self.ini.file.sampling(self.index, quick, budget_ms)

    def work(self, so, dtype):
        """The plugin's bytes, flops, tolerance and steps for the case (kb_case_work)."""
        return self.ini.file.case_work(so, self.index, dtype)


class Ini:
    """An experiment's INI: its plugin and its cases, read by klab (through libklab_bench)."""

    def __init__(self, path):
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        try:
            self.file = bench.IniFile(path)
        except bench.BenchError as e:
            raise IniError(str(e)) from None
        self._read()

    def _read(self):
        doc = self.file.document()
        self.plugin = doc["plugin"]
        self.cases = [Case(self, i, d) for i, d in enumerate(doc["cases"])]

    def select(self, names, ini_only=False):
        """The cases named (all when names is empty); a name that is no case but a shape becomes a case of
        [defaults] alone, as a [case NAME] section would, unless ini_only: then, as klab's --case, it
        selects nothing here."""
        if not names:
            return self.cases
        by = {c.name: c for c in self.cases}
        out = []
        for n in names:
            if n not in by:
                if ini_only:
                    continue
                try:
                    self.file.add_case(n)
                except bench.BenchError as e:
                    raise IniError(str(e)) from None
                self._read()
                by = {c.name: c for c in self.cases}
            out.append(by[n])
        return out
