#!/usr/bin/env python3
"""Writes the probe INI of the ninth sitting's call 1 from ini/decode_replay.ini: llama8b-4l and attn-only
with the attention named (attn=mma, attn=mma_cluster), gemv=stream, probed."""
import re, sys
src = open('ini/decode_replay.ini').read()
sections = re.split(r'(?m)^(?=\[case )', src)
head, cases = sections[0], {}
for s in sections[1:]:
    name = re.match(r'\[case ([^\]]+)\]', s).group(1)
    cases[name] = s.split('\n', 1)[1]
head = re.sub(r'(?m)^budget_ms = .*$', 'budget_ms = 3000', head)
head = re.sub(r'(?m)^dtypes = .*$', 'dtypes = fp16', head)
head = re.sub(r'(?m)^profiles = .*$', 'profiles = graph, graph_pdl', head)
out = [head]
def body(n): return re.sub(r'(?m)^;.*\n', '', cases[n]).rstrip('\n') + '\n'
for base in ('llama8b-4l', 'attn-only', 'small-16l'):
    for a in ('mma', 'mma_cluster'):
        out.append('[case %s-probe-%s]\n%sparam.probes = 1\nconfig = attn=%s,gemv=%s\n\n'
                   % (base, a, body(base), a, 'plain' if base == 'small-16l' else 'stream'))
open(sys.argv[1], 'w').write(''.join(out))
