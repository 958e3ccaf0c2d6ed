#!/usr/bin/env python3
"""Thirteenth sitting, call 8: small-16l with the cluster plan's new floor (8 splits of 128, ef9af05's own
plan) against the old plan forced (dim.chunk = 64: 16 splits), in turn ABAB, graph_pdl; and the dynamic case."""
import sys
out = ["""[experiment]
plugin = decode_replay

[defaults]
dtypes = fp16
profiles = graph_pdl
dim.head_dim = 128
budget_ms = 3000
steps = 64

"""]
S = "dim.batch = 1\ndim.layers = 16\ndim.hidden = 2048\ndim.heads = 16\ndim.kv_heads = 4\ndim.inter = 8192\ndim.kv = 1024\n"
for name, extra in [('S-new', ''), ('S-old', 'dim.chunk = 64\n'), ('S-new-b', ''), ('S-old-b', 'dim.chunk = 64\n'),
                    ('S-new-dyn', 'param.schedule = dynamic\nsteps = 8\n'),
                    ('S-old-dyn', 'param.schedule = dynamic\nsteps = 8\ndim.chunk = 64\n')]:
    out.append(f"[case {name}]\n{S}{extra}\n")
open(sys.argv[1], 'w').write(''.join(out))
