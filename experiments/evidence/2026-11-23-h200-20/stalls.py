import csv, sys
for f in sys.argv[1:]:
    r = list(csv.reader(open(f)))
    h = r[1]; rows = r[2:]
    idx = {c: i for i, c in enumerate(h)}
    tot = sum(int(x[idx["Warp Stall Sampling (All Samples)"]] or 0) for x in rows)
    ins = sum(int(x[idx["Instructions Executed"]] or 0) for x in rows)
    cols = [c for c in h if c.startswith("stall_") and "Not Issued" not in c]
    s = {c: sum(int(x[idx[c]] or 0) for x in rows) for c in cols}
    top = sorted(s.items(), key=lambda kv: -kv[1])[:7]
    print(f.split('/')[-1], "samples", tot, "warp insts", ins, "sass lines", len(rows), " ".join(f"{c[6:]}={v/tot*100:.0f}%" for c, v in top))
