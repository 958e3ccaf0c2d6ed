#!/bin/bash
# twentieth sitting, call 3: (1) ncu of the tile kernels at 65537x17 (rmsnorm fp16, bf16; softmax fp16) beside
# torch.compile's RMSNorm kernels (fp16, bf16): where a ~7 us launch goes; (2) issue 28: decode_replay's
# llama8b-4l, small-16l, attn-only under graph_pdl against the new copy (2e4ac93), >= 1000 steps.
C=$1; export KLAB_COMMIT=$C
S=.sit/s20
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; KLAB_TARGETS="klab klab_bench rmsnorm softmax decode_replay" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
M="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg,gpc__cycles_elapsed.max"
for c in rmsnorm:fp16:ini/rmsnorm.ini rmsnorm:bf16:ini/rmsnorm.ini softmax:fp16:tests/gpu_ini/softmax.ini; do
  IFS=: read p d ini <<< "$c"
  t0=$SECONDS; timeout 60 ncu --clock-control none --metrics $M --section SourceCounters --section WarpStateStats --import-source yes -k regex:tile_kernel -c 1 -o $OUT/k-$p-$d $K --no-isolate --verify-only --config $ini --case 65537x17 --dtype $d --profile fused --out $R --run-id ncu-$p-$d > $OUT/logs/ncu-k-$p-$d.txt 2>&1; echo "ncu klab $p $d exit $? in $((SECONDS-t0)) s"
  ncu -i $OUT/k-$p-$d.ncu-rep --page raw --csv > $OUT/logs/raw-k-$p-$d.csv 2>&1
  ncu -i $OUT/k-$p-$d.ncu-rep --page source --csv --print-source sass > $OUT/logs/src-k-$p-$d.csv 2>&1
  ncu -i $OUT/k-$p-$d.ncu-rep --page details > $OUT/logs/det-k-$p-$d.txt 2>&1
done
for d in fp16 bf16; do
  t0=$SECONDS; TRITON_CACHE_DIR=$OUT/triton-$d timeout 90 ncu --clock-control none --profile-from-start off --metrics $M --section SourceCounters --section WarpStateStats --import-source yes -k regex:triton -c 1 -o $OUT/t-$d python3 $S/tc2.py 65537 17 $d > $OUT/logs/ncu-t-$d.txt 2>&1; echo "ncu triton $d exit $? in $((SECONDS-t0)) s"
  ncu -i $OUT/t-$d.ncu-rep --page raw --csv > $OUT/logs/raw-t-$d.csv 2>&1
  ncu -i $OUT/t-$d.ncu-rep --page source --csv --print-source sass > $OUT/logs/src-t-$d.csv 2>&1
  ncu -i $OUT/t-$d.ncu-rep --page details > $OUT/logs/det-t-$d.txt 2>&1
done
for f in $OUT/logs/raw-*.csv; do python3 - $f <<'P'
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
if len(r) < 3: print(sys.argv[1], "empty"); sys.exit()
h, v = r[0], r[2]
want = ["gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "launch__grid_size", "launch__block_size", "launch__registers_per_thread", "smsp__inst_executed.sum", "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg", "gpc__cycles_elapsed.max"]
print(sys.argv[1].split("/")[-1], " ".join(f"{w.split('__')[-1][:20]}={v[h.index(w)][:12]}" for w in want if w in h))
P
done
tar -C $OUT -czf $OUT/g3-ncu.tgz logs triton-fp16 triton-bf16
t0=$SECONDS; timeout 200 $K --plugin decode_replay --case llama8b-4l,small-16l,attn-only --dtype fp16 --profile graph_pdl --out $R --run-id decode --timeout 190 > $OUT/decode.txt 2>&1; echo "decode exit $? in $((SECONDS-t0)) s"
grep -E "^(llama|small|attn)" $OUT/decode.txt | cut -c1-200
tar -C $OUT -czf $OUT/g3-decode.tgz r decode.txt; rm -rf $R $OUT/logs $OUT/triton-* $OUT/*.ncu-rep
