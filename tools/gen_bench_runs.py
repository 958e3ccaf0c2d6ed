#!/usr/bin/env python3
"""Two large synthetic run folders, for timing klab's readers by hand (docs/compare.md, "How long it
takes"): compare, merge and report must stay O(n log n) in the rows, and this is how that is measured.

    python3 tools/gen_bench_runs.py --rows 1000000 --out /tmp/klab-bench
    time build/klab compare /tmp/klab-bench/a /tmp/klab-bench/b
    time build/klab merge /tmp/klab-bench/merged /tmp/klab-bench/a /tmp/klab-bench/b
    time build/klab report --experiments experiments --out-dir /tmp/klab-bench/report /tmp/klab-bench/a /tmp/klab-bench/b

Each folder holds meta.ini, rmsnorm.csv with --rows rows in this klab's schema (cases n0000000...,
profiles fused and baseline, fp16; B's medians 1 % above A's, its interval as tight) and, with
--counters, rmsnorm.counters.csv with one kernel line per row. The two runs name different GPUs (their
rows merge side by side: merge keys rows by GPU too) and the same commit and INI hash (merge refuses
others). Not a test: nothing here is timed by ctest."""
import argparse
import os
import random

COLUMNS = ("run_id,plugin,case,shape,dtype,profile,config,l2,launch,batch,footprint_bytes,status,reason,"
           "flags,reps,discarded,median_ms,median_lo,median_hi,p95_ms,p99_ms,min_ms,max_ms,mean_ms,noise,"
           "precision,bytes,flops,gbps,tflops,limit,limit_gbps,frac_limit,speedup,speedup_lo,speedup_hi,"
           "sm_mhz,launch_floor_ms,rel_l2_err,max_abs_err,tolerance,verified_elems,seed,schema,"
           "samples_file,gpu,gpu_name,gpu_uuid")
COUNTERS = ("run_id,plugin,case,dtype,profile,config,gpu,gpu_uuid,kernel_index,kernel,grid,block,status,"
            "reason,dram_pct,achieved_occupancy_pct,sm_pct,tensor_hmma_pct,tensor_gmma_pct,l2_hit_pct,"
            "registers,smem_static_bytes,smem_dynamic_bytes")

META = """; written by tools/gen_bench_runs.py: synthetic rows for timing klab's readers
[run]
id = {id}
started = 2026-01-01T00:00:00Z
command = tools/gen_bench_runs.py
klab_version = 0.1.0
commit = bench00
csv_schema = 3
seed = 7

[inis]
rmsnorm = 00000000bench000

[ini_paths]
rmsnorm = ini/rmsnorm.ini

[device]
ordinal = {gpu}
name = NVIDIA H200
uuid = {uuid}
"""


def write_run(folder, name, rows, scale, gpu, counters):
    os.makedirs(folder, exist_ok=True)
    uuid = "GPU-0000000%d-aaaa-bbbb-cccc-dddddddddddd" % gpu
    with open(os.path.join(folder, "meta.ini"), "w") as f:
        f.write(META.format(id=name, gpu=gpu, uuid=uuid))
    rng = random.Random(gpu)
    cases = (rows + 1) // 2
    with open(os.path.join(folder, "rmsnorm.csv"), "w") as f, \
            open(os.path.join(folder, "rmsnorm.counters.csv") if counters else os.devnull, "w") as c:
        f.write(COLUMNS + "\n")
        c.write(COUNTERS + "\n")
        out, cout = [], []
        for i in range(rows):
            case = "n%07d" % (i // 2)
            profile = "fused" if i % 2 == 0 else "baseline"
            m = (0.020 + 0.000001 * (i // 2 % 977)) * (1.6 if i % 2 else 1.0) * scale
            m *= 1 + 0.001 * (rng.random() - 0.5)
            lo, hi = m * 0.997, m * 1.003
            out.append(
                "%s,rmsnorm,%s,4096x%d,fp16,%s,\"cta=256,tpr=32,vpt=4\",cold,stream,1,,passed,,,120,0,"
                "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,0.004,0.003,134217728,,4060.18,,copy,3970.1,1.02268,"
                "1.6,1.58,1.62,1980,,0.000213,0.0039,0.002,33554432,7,3,,%d,NVIDIA H200,%s\n"
                % (name, case, 128 + i // 2 % cases, profile, m, lo, hi, m * 1.05, m * 1.08, m * 0.95,
                   m * 1.2, m * 1.01, gpu, uuid))
            if counters:
                cout.append("%s,rmsnorm,%s,fp16,%s,\"cta=256,tpr=32,vpt=4\",%d,%s,0,rmsnorm_kernel,"
                            "\"(4096, 1, 1)\",\"(256, 1, 1)\",measured,,87.12,61.5,40.25,0,0,12.5,32,0,1024\n"
                            % (name, case, profile, gpu, uuid))
            if len(out) == 10000:
                f.write("".join(out))
                c.write("".join(cout))
                out, cout = [], []
        f.write("".join(out))
        c.write("".join(cout))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1000000, help="rows in each run (default 1000000)")
    ap.add_argument("--out", required=True, help="the folder to write runs a and b into")
    ap.add_argument("--counters", action="store_true", help="also a counters file, one kernel line a row")
    a = ap.parse_args()
    write_run(os.path.join(a.out, "a"), "bench-a", a.rows, 1.00, 0, a.counters)
    write_run(os.path.join(a.out, "b"), "bench-b", a.rows, 1.01, 1, a.counters)
    print("wrote %s/a and %s/b, %d rows each" % (a.out, a.out, a.rows))


if __name__ == "__main__":
    main()
