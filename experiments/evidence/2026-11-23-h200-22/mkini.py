#!/usr/bin/env python3
"""Twenty-second sitting: the INI of an A/B of the cluster attention. Call 1 (the merge: pull with two
barriers against push with one): llama8b-4l (B = 1 and 8), small-16l, attn-only, and attn-only at kv 512
(its span almost all the fixed chain), graph_pdl's own configuration, fp16; `probes`: llama8b-4l and
kv 512, probed. `call2` (the copies before the length): B = 8 dropped, llama8b-4l-dyn added."""
import sys
mode = sys.argv[2] if len(sys.argv) > 2 else ''
probes = mode == 'probes'
L = "dim.batch = 1\ndim.layers = 4\ndim.hidden = 4096\ndim.heads = 32\ndim.kv_heads = 8\ndim.inter = 14336\ndim.kv = 4096\n"
S = "dim.batch = 1\ndim.layers = 16\ndim.hidden = 2048\ndim.heads = 16\ndim.kv_heads = 4\ndim.inter = 8192\ndim.kv = 1024\n"
cases = [('llama8b-4l', L), ('small-16l', S), ('attn-only', L + "param.part = attn\n"),
         ('attn-kv512', L.replace("dim.kv = 4096", "dim.kv = 512") + "param.part = attn\n"),
         ('llama8b-4l-b8', L.replace("dim.batch = 1", "dim.batch = 8"))]
if mode == 'call2':
    cases = [c for c in cases if c[0] != 'llama8b-4l-b8'] + [('llama8b-4l-dyn', L + "param.schedule = dynamic\nsteps = 8\n")]
if probes:
    cases = [c for c in cases if c[0] in ('llama8b-4l', 'attn-kv512')]
out = ["[experiment]\nplugin = decode_replay\n\n[defaults]\ndtypes = fp16\nprofiles = graph_pdl\n"
       "dim.head_dim = 128\nbudget_ms = 3000\nsteps = 64\n\n"]
for name, dims in cases:
    out.append(f"[case {name}]\n{dims}" + ("param.probes = 1\n" if probes else "") + "\n")
open(sys.argv[1], 'w').write(''.join(out))
