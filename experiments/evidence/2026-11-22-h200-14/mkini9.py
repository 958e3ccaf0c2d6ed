#!/usr/bin/env python3
"""Fourteenth sitting, call 9: small-16l graph_pdl (the final rule's configuration: O and down streamed, QKV
and gate/up on the register GEMV) as one case, timed with two builds of decode_replay.so in turn."""
import sys
open(sys.argv[1], 'w').write("""[experiment]
plugin = decode_replay

[defaults]
dtypes = fp16
profiles = graph_pdl
dim.head_dim = 128
budget_ms = 3000
steps = 64

[case S]
dim.batch = 1
dim.layers = 16
dim.hidden = 2048
dim.heads = 16
dim.kv_heads = 4
dim.inter = 8192
dim.kv = 1024

""")
