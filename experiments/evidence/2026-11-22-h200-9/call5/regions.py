#!/usr/bin/env python3
"""Call 5: ncu's source counters of attn_mma_kernel<half,128,4,true,3> (attn-only, graph_pdl's own choice)
summed over the kernel's regions, cut at the SASS markers (ACQBULK = griddepcontrol.wait, the CTA and
cluster barriers). Usage: python3 regions.py ncu-src.csv.gz"""
import csv, gzip, io, sys
lines = gzip.open(sys.argv[1], 'rt').read().splitlines()
rows = list(csv.DictReader(io.StringIO('\n'.join(lines[next(k for k, l in enumerate(lines) if l.startswith('"Address"')):]))))
f = lambda x: float(x.replace(',', '')) if x not in ('-', '') else 0.0
src = [r['Source'].strip() for r in rows]
S = [f(r['Warp Stall Sampling (All Samples)']) for r in rows]
E = [f(r['Instructions Executed']) for r in rows]
X = [f(r['L1 Wavefronts Shared Excessive']) for r in rows]
at = lambda m, start=0: next(k for k in range(start, len(src)) if m in src[k])
wait = at('ACQBULK'); bar1 = at('BAR.SYNC', wait); arv1 = at('UCGABAR_ARV'); wt1 = at('UCGABAR_WAIT', arv1)
arv2 = at('UCGABAR_ARV', wt1 + 1); wt2 = at('UCGABAR_WAIT', arv2); mb = at('MEMBAR.ALL.GPU')
cuts = [(0, wait, 'issue: cursor, length, the tiles\' copies'), (wait, bar1 + 1, 'the wait, q, RoPE, append, q staged'),
        (bar1 + 1, mb - 40, 'tiles: waits, MMA, softmax, refills'), (mb - 40, mb, 'the warps\' merge'),
        (mb, wt1 + 1, 'cluster barrier 1 (release: MEMBAR.ALL.GPU)'), (wt1 + 1, arv2, 'the DSMEM merge, o'),
        (arv2, wt2 + 1, 'cluster barrier 2'), (wt2 + 1, len(rows), 'step_end')]
tot = sum(S)
print('| region | stall samples | share | warp instructions | excess shared wavefronts |\n|---|---|---|---|---|')
for a, b, n in cuts:
    print(f'| {n} | {sum(S[a:b]):.0f} | {100 * sum(S[a:b]) / tot:.1f} % | {sum(E[a:b]):.0f} | {sum(X[a:b]):.0f} |')
print(f'| all | {tot:.0f} | | {sum(E):.0f} | {sum(X):.0f} |\n\nhottest instructions:')
for k in sorted(range(len(rows)), key=lambda k: -S[k])[:6]:
    print(f'  #{k} {src[k][:50]:50s} {S[k]:.0f} samples', [c for c in rows[k] if c.startswith('stall_') and 'Not' not in c and f(rows[k][c]) > 0])
