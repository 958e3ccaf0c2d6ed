import csv,glob,collections,sys
def f(x): 
    try: return float(x)
    except: return float('nan')
for fn in sys.argv[1:]:
    rows=[r for r in csv.DictReader(open(fn)) if r['status']=='passed' and r['frac_limit']]
    g=collections.defaultdict(list)
    for r in rows: g[(r['case'],r['dtype'])].append(r)
    for k,v in g.items():
        v.sort(key=lambda r:-f(r['frac_limit']))
        print(f"{fn.split('/')[-1]} {k[0]} {k[1]}: {len(v)} rows")
        own=[r for r in v if 'own-choice' in r['flags']]
        for r in v[:6]+[x for x in own if x not in v[:6]]: print(f"   {100*f(r['frac_limit']):6.1f}% {1e3*f(r['median_ms']):8.2f} [{1e3*f(r['median_lo']):.2f}-{1e3*f(r['median_hi']):.2f}] {r['config']} {r['flags']}")
