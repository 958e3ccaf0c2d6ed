#!/bin/bash
# nineteenth sitting, call 1 (issue 22): why torch.compile and cudaMemcpy run 2.5-4 % above klab's copy16.
# (1) copy_probe: 30 copy variants (block shapes, vectors a thread, load/store cache hints, bulk copies,
# memcpy) timed round-robin from a cold L2 at 16/64/128/256 MiB a side; (2) ncu DRAM/L2 counters of every
# variant once at 64 MiB; (3) torch.compile's RMSNorm and pointwise kernels: PTX and metadata (Triton cache),
# ncu counters and SASS source at fp16 262144x128, fp16 32768x1024, fp32 4096x8192, beside klab's row kernel.
C=$1; export KLAB_COMMIT=$C
S=.sit/s19
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,clocks.max.mem --format=csv,noheader
t0=$SECONDS; nvcc -O3 -std=c++17 -arch=sm_90a -o $OUT/copy_probe $S/copy_probe.cu || exit 1; echo "probe built $((SECONDS-t0)) s"
t0=$SECONDS; (KLAB_TARGETS="klab klab_bench rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || tail -30 $OUT/build.txt) & BP=$!
t1=$SECONDS; timeout 150 $OUT/copy_probe 200 16 64 128 256 > $OUT/probe.csv 2> $OUT/probe.err; echo "probe exit $? in $((SECONDS-t1)) s"
cat $OUT/probe.csv $OUT/probe.err
wait $BP; echo "build done $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum"
t0=$SECONDS; timeout 150 ncu --clock-control none --metrics $M --csv $OUT/copy_probe --once 64 > $OUT/logs/ncu-probe.csv 2> $OUT/logs/ncu-probe.err; echo "ncu probe exit $? in $((SECONDS-t0)) s"
python3 - $OUT/logs/ncu-probe.csv <<'P'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; rows = rows[1:]
ki, ni, vi, ii = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
k = collections.OrderedDict()
for r in rows:
    if r[0] == "ID": continue
    k.setdefault((r[ii], r[ki][:60]), {})[r[ni]] = r[vi]
for (i, name), m in k.items():
    if int(i) < 60 and not name.startswith(("flush", "fill", "diff")): pass
    if name.startswith(("flush", "fill", "diff")): continue
    print(i, name, "|", " ".join(f"{a.split('__')[1][:28]}={m[a]}" for a in sorted(m)))
P
mkdir -p $OUT/triton
for c in 262144:128:fp16:n128 32768:1024:fp16:n1024 4096:8192:fp32:n8192 4096:8192:fp16:copy; do
  IFS=: read m n d cs <<< "$c"
  op=rms; [ $cs = copy ] && op=copy
  t0=$SECONDS
  TRITON_CACHE_DIR=$OUT/triton/$m-$n-$d-$op TORCHINDUCTOR_CACHE_DIR=/tmp/ind-$m-$n-$d-$op timeout 120 ncu --clock-control none --profile-from-start off --metrics $M --section SourceCounters --import-source yes -k regex:triton -c 1 -o $OUT/t-$n-$d-$op python3 $S/tc2.py $m $n $d $op > $OUT/logs/ncu-t-$n-$d-$op.txt 2>&1; echo "ncu triton $n $d $op exit $? in $((SECONDS-t0)) s"
  ncu -i $OUT/t-$n-$d-$op.ncu-rep --page raw --csv > $OUT/logs/raw-t-$n-$d-$op.csv 2>&1
  ncu -i $OUT/t-$n-$d-$op.ncu-rep --page source --csv --print-source sass > $OUT/logs/src-t-$n-$d-$op.csv 2>&1
  find /tmp/ind-$m-$n-$d-$op -name '*.py' -newer $S/tc2.py 2>/dev/null | xargs grep -l 'triton_' 2>/dev/null | head -3 | xargs -I{} cp {} $OUT/triton/$m-$n-$d-$op/ 2>/dev/null
  if [ $op = rms ]; then
    t0=$SECONDS; timeout 90 ncu --clock-control none --metrics $M --section SourceCounters --import-source yes -k regex:row_kernel -c 1 -o $OUT/k-$n-$d $K --no-isolate --verify-only --config experiments/rowsweep_rmsnorm.ini --case $cs --dtype $d --out $R --run-id ncu-$n-$d > $OUT/logs/ncu-k-$n-$d.txt 2>&1; echo "ncu klab $n $d exit $? in $((SECONDS-t0)) s"
    ncu -i $OUT/k-$n-$d.ncu-rep --page raw --csv > $OUT/logs/raw-k-$n-$d.csv 2>&1
    ncu -i $OUT/k-$n-$d.ncu-rep --page source --csv --print-source sass > $OUT/logs/src-k-$n-$d.csv 2>&1
  fi
  for f in $OUT/logs/raw-*-$n-$d*.csv; do python3 - $f <<'P'
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
if len(r) < 3: print(sys.argv[1], "empty"); sys.exit()
h, v = r[0], r[2]
want = ["Kernel Name", "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum", "launch__grid_size", "launch__block_size", "launch__registers_per_thread", "smsp__inst_executed.sum"]
print(sys.argv[1].split("/")[-1], " ".join(f"{w.split('__')[-1][:26]}={v[h.index(w)][:40]}" for w in want if w in h))
P
  done
done
find $OUT/triton -type f \( -name '*.ptx' -o -name '*.json' -o -name '*.py' -o -name '*.ttgir' \) | head -40
tar -C $OUT -czf $OUT/g1-out.tgz logs triton probe.csv
rm -rf $R $OUT/logs $OUT/triton $OUT/*.ncu-rep $OUT/copy_probe
