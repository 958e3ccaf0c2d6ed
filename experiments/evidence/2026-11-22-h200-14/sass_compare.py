#!/usr/bin/env python3
"""Fourteenth sitting: are decode_replay.so's stream kernels SASS-identical to those of measured builds?
Usage: sass_compare.py FINAL.sass OLD_997c62f.sass CC4DA28.sass (each `cuobjdump -sass decode_replay.so`).
Addresses and encodings are masked; kernels are matched by dtype, ring stages, epilogue policy, gated,
persistent and PDL (the anonymous namespace's hash differs between build folders)."""
import re, sys

def bodies(f):
    d, cur = {}, None
    for line in open(f):
        m = re.search(r'Function : (\S+)', line)
        if m:
            cur = m.group(1); d[cur] = []; continue
        if cur and line.strip():
            l = re.sub(r'/\*[0-9a-f]{4}\*/', '', line); l = re.sub(r'/\* 0x[0-9a-f]+ \*/', '', l)
            d[cur].append(re.sub(r'0x[0-9a-f]+', 'A', l.strip()))
    return d

def key(k):
    k = re.sub(r'_GLOBAL__N__[0-9a-f]+_\d+_decode_replay_kernels_cu_[0-9a-f]+', 'ANON', k)
    m = re.search(r'stream_kernelINS_3CfgI(\w+?)Li8ELb0ELi(\d+)ELb0E((?:Lb[01]E)*)E', k)
    if not m:
        return k
    flags = m.group(3)
    epi = 'Gated' if 'Gated' in k else 'NormIn<Resid>' if 'NormIn' in k else 'Resid'
    persist = flags.count('Lb1') == 2 or (epi == 'Gated' and flags == 'Lb1E')  # cc4da28: every gated kernel persistent
    pdl = re.search(r'ELb([01])EEEv14CUtensorMap', k).group(1)
    return (m.group(1), m.group(2), epi, flags.startswith('Lb1'), persist, pdl)

n, o, c = (dict((key(k), v) for k, v in bodies(f).items()) for f in sys.argv[1:4])
for k in sorted(x for x in n if isinstance(x, tuple)):
    if k[2] == 'Gated':
        r = c.get(k) if k[4] else None
        print(k, 'same as cc4da28' if r == n[k] else '(one-pass gated: no measured twin)' if r is None else 'DIFF')
    else:
        print(k, 'same as 997c62f' if o.get(k) == n[k] else 'DIFF')
others = [k for k in o if not isinstance(k, tuple)]
print('other kernels same as 997c62f:', sum(o[k] == n.get(k) for k in others), 'of', len(others))
