"""klab's INI files (core/ini_config.c, through inih) as the Python tools read them: the subset
tools/torch_rows.py and tools/torch_decode.py need (a case's shape, dtypes, param.*, dim.*, budget_ms,
profiles, config and steps, with [defaults]). klab is the judge of a file (klab --validate); this reads
what kb_begin takes and what PyTorch's callables need, and errors name the file and line."""
import math
import os
import re



class IniError(Exception):
    pass


def parse_shape(s):
    """'4096x8192', '2^28', '8x2^24' -> dims, as cfg_parse_shape; None when s is not a shape."""
    dims = []
    for part in re.split(r"[xX]", s):
        m = re.fullmatch(r"(\d+)(?:\^(\d+))?", part)
        if not m:
            return None
        v = int(m.group(1))
        if m.group(2) is not None:
            if v != 2:
                return None
            v = 1 << int(m.group(2))
        if v <= 0:
            return None
        dims.append(v)
    return tuple(dims) if dims else None


class Case:
    def __init__(self, name, keys, line):
        self.name, self.line = name, line
        self.shape = keys.get("shape", name)
        self.dims = parse_shape(self.shape)
        self.dtypes = [d.strip() for d in keys.get("dtypes", "fp32").split(",") if d.strip()]
        self.params = {k[6:]: v for k, v in keys.items() if k.startswith("param.")}
        self.named = {k[4:]: int(v) for k, v in keys.items() if k.startswith("dim.")}
        self.budget_ms = float(keys.get("budget_ms", 1500))
        self.profiles = [p.strip() for p in keys["profiles"].split(",")] if "profiles" in keys else []
        self.config, self.steps = keys.get("config"), keys.get("steps")

    @property
    def rows(self):
        return math.prod(self.dims[:-1])

    @property
    def cols(self):
        return self.dims[-1]

    def kb_params(self):
        """param.* then dim.*, as kb_begin reads them: "eps=1e-6;dim.m=4096"."""
        return ";".join([f"{k}={v}" for k, v in self.params.items()] + [f"dim.{k}={v}" for k, v in self.named.items()])

    def kb_shape(self):
        return self.shape if self.dims else ""  # sized by dim.* alone: no shape, as klab has it


class Ini:
    def __init__(self, path, plugins):
        """plugins: the plugins whose cases are read; another plugin's INI keeps no cases (it may size
        them in ways this reader does not know)."""
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        sections, cur = [], None
        try:
            text = open(path, encoding="utf-8").read()
        except OSError as e:
            raise IniError(f"{path}: {e.strerror}")
        for n, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line[0] in ";#":
                continue
            if line[0] == "[":
                if "]" not in line:
                    raise IniError(f"{path}:{n}: section header without ']'")
                cur = {}
                sections.append((line[1:line.index("]")].strip(), cur, n))
                continue
            line = re.split(r"\s;", line, maxsplit=1)[0]  # inih's inline comment: ';' after a space
            m = re.match(r"([^=:]+)[=:](.*)", line)
            if not m or cur is None:
                raise IniError(f"{path}:{n}: expected key = value in a section")
            cur[m.group(1).strip()] = m.group(2).strip()
        exp = [s for s in sections if s[0] == "experiment"]
        if not exp or "plugin" not in exp[0][1]:
            raise IniError(f"{path}: no [experiment] plugin = NAME")
        self.plugin = exp[0][1]["plugin"]
        self.defaults = next((s[1] for s in sections if s[0] == "defaults"), {})
        self.cases = []
        if self.plugin not in plugins:
            return
        for name, keys, n in sections:
            if name.startswith("case "):
                self.cases.append(self.case(name[5:].strip(), keys, n))

    def case(self, name, own, line=0):
        keys = dict(self.defaults)
        keys.update(own)
        if "shape" not in own:
            keys.pop("shape", None)  # klab refuses a shape in [defaults]; a case's name is its shape then
        c = Case(name, keys, line)
        if c.dims is None and not c.named:
            raise IniError(f"{self.path}:{line}: [case {name}] has no shape and its name is not one")
        return c

    def select(self, names, ini_only=False):
        """The cases named (all when names is empty); a name that is no case but a shape is a new case,
        unless ini_only: then, as klab's --case, it selects nothing here."""
        if not names:
            return self.cases
        by = {c.name: c for c in self.cases}
        out = []
        for n in names:
            if n in by:
                out.append(by[n])
            elif ini_only:
                continue
            elif parse_shape(n):
                out.append(self.case(n, {}))
            else:
                raise IniError(f"{self.path}: no case '{n}', and '{n}' is not a shape")
        return out
