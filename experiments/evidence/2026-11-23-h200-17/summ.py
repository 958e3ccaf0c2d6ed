#!/usr/bin/env python3
"""Print each row of klab CSVs: case, dtype, profile, status, median (us) [lo-hi], samples, speedup [lo-hi], config, flags."""
import csv, sys
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        g = lambda k: r.get(k) or ''
        try:
            med = float(g('median_ms') or 'nan') * 1e3
        except ValueError:
            med = float('nan')
        lo = g('median_lo') and float(g('median_lo')) * 1e3
        hi = g('median_hi') and float(g('median_hi')) * 1e3
        print(f"{g('case'):18s} {g('dtype'):7s} {g('profile'):16s} {g('status'):7s} {med:9.2f} [{lo or 0:.2f}-{hi or 0:.2f}] n={g('reps')} {g('sm_mhz')}MHz "
              f"sp={g('speedup')} [{g('speedup_lo')}-{g('speedup_hi')}] {g('config')[:70]:70s} {g('flags')} {g('reason')[:90]}")
