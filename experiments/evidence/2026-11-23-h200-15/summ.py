#!/usr/bin/env python3
"""Print each row of klab CSVs: case, dtype, profile, status, median (us) [lo-hi], % of copy, config, flags."""
import csv, sys
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        med = float(r['median_ms'] or 'nan') * 1e3
        lo = r['median_lo'] and float(r['median_lo']) * 1e3
        hi = r['median_hi'] and float(r['median_hi']) * 1e3
        fr = r['frac_limit'] and 100 * float(r['frac_limit'])
        print(f"{r['case']:24s} {r['dtype']:5s} {r['profile']:6s} {r['status']:7s} {med:9.2f} [{lo or 0:.2f}-{hi or 0:.2f}] "
              f"{fr or 0:6.1f}% {r['config']:50s} {r['flags']} {r['reason'][:80]}")
