#!/usr/bin/env python3
"""Twenty-second sitting, call 1: the INI of the A/B of the cluster attention's merge (pull with two
barriers against push with one): llama8b-4l (B = 1 and 8), small-16l, attn-only, and attn-only at kv 512
(its span almost all the fixed chain), graph_pdl's own configuration, fp16. probes: one of each, probed."""
import sys
probes = len(sys.argv) > 2 and sys.argv[2] == 'probes'
L = "dim.batch = 1\ndim.layers = 4\ndim.hidden = 4096\ndim.heads = 32\ndim.kv_heads = 8\ndim.inter = 14336\ndim.kv = 4096\n"
S = "dim.batch = 1\ndim.layers = 16\ndim.hidden = 2048\ndim.heads = 16\ndim.kv_heads = 4\ndim.inter = 8192\ndim.kv = 1024\n"
cases = [('llama8b-4l', L), ('small-16l', S), ('attn-only', L + "param.part = attn\n"),
         ('attn-kv512', L.replace("dim.kv = 4096", "dim.kv = 512") + "param.part = attn\n"),
         ('llama8b-4l-b8', L.replace("dim.batch = 1", "dim.batch = 8"))]
if probes:
    cases = [c for c in cases if c[0] in ('llama8b-4l', 'attn-kv512')]
out = ["[experiment]\nplugin = decode_replay\n\n[defaults]\ndtypes = fp16\nprofiles = graph_pdl\n"
       "dim.head_dim = 128\nbudget_ms = 3000\nsteps = 64\n\n"]
for name, dims in cases:
    out.append(f"[case {name}]\n{dims}" + ("param.probes = 1\n" if probes else "") + "\n")
open(sys.argv[1], 'w').write(''.join(out))
