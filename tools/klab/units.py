"""--units FILE: the exact (case, dtype) units to run, one a line as `case<TAB>dtype`, so that a caller
that has already chosen the units (klab's shard of a run, one GPU's part of --devices) has PyTorch run
those and no others. A line that is not two fields, a case no INI has, or a dtype the case does not
list is an error naming FILE:line, before any GPU work."""


class UnitsError(Exception):
    pass


def read_units(path):
    """{(case, dtype): line} of the file; blank lines are skipped."""
    units = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise UnitsError(f"--units {path}: {e.strerror}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not all(fields):
            raise UnitsError(f"{path}:{n}: expected case<TAB>dtype, got '{line}'")
        units.setdefault((fields[0], fields[1]), n)
    return units


def check_units(path, units, inis):
    """Every unit is a case of one of the INIs (Ini objects) in one of that case's dtypes."""
    cases = {}
    for ini in inis:
        for c in ini.cases:
            cases.setdefault(c.name, []).append((ini, c))
    for (case, dtype), n in sorted(units.items(), key=lambda kv: kv[1]):
        if case not in cases:
            names = ", ".join(ini.path for ini in inis) or "no INI"
            raise UnitsError(f"{path}:{n}: no case '{case}' in {names}")
        if not any(dtype in c.dtypes for _, c in cases[case]):
            raise UnitsError(f"{path}:{n}: case '{case}' has no dtype '{dtype}' "
                             f"(it has {', '.join(cases[case][0][1].dtypes)})")
