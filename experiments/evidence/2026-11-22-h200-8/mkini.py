#!/usr/bin/env python3
"""Writes the probe/chunk INI of call 7 from ini/decode_replay.ini: probed cases with gemv=stream and plain
named, and the mma attention at chunk 64 / 256 (llama8b-4l, attn-only)."""
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
for base in ('llama8b-4l', 'small-16l'):
    for g in ('plain', 'stream'):
        out.append('[case %s-probe-%s]\n%sparam.probes = 1\nconfig = attn=mma,gemv=%s\n\n' % (base, g, body(base), g))
for base in ('llama8b-4l', 'attn-only'):
    for ch in (64, 128, 256):
        out.append('[case %s-mma-c%d]\n%sdim.chunk = %d\nconfig = attn=mma,gemv=plain\n\n' % (base, ch, body(base), ch))
open(sys.argv[1], 'w').write(''.join(out))
