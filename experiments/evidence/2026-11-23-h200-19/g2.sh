#!/bin/bash
# nineteenth sitting, call 2 (issue 22): (1) copy_probe set 2 (small blocks, 1-4 vectors a thread) at
# 8..512 MiB a side; (2) short rows (N = 128..4096, 2^25 elements) in small blocks / fewer vectors a
# thread beside the own choice (mk2.py), rmsnorm twice (two processes), softmax once; (3) torch_rows at
# the same N (PyTorch in the same rounds as the own plans).
C=$1; export KLAB_COMMIT=$C
S=.sit/s19
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,clocks.max.mem --format=csv,noheader
nvcc -O3 -std=c++17 -arch=sm_90a -o $OUT/copy_probe $S/copy_probe.cu || exit 1
t0=$SECONDS; (KLAB_TARGETS="klab klab_bench rmsnorm softmax" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || tail -30 $OUT/build.txt) & BP=$!
t1=$SECONDS; PROBE_SET=2 timeout 120 $OUT/copy_probe 300 8 16 24 32 48 64 128 512 > $OUT/probe2.csv 2> $OUT/probe2.err; echo "probe exit $? in $((SECONDS-t1)) s"
cat $OUT/probe2.csv $OUT/probe2.err
wait $BP; echo "build done $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
python3 $S/mk2.py $S
for i in 1 2; do
  t0=$SECONDS; timeout 200 $K --config $S/rms.ini --out $R --run-id rms-$i > $OUT/logs/rms-$i.txt 2>&1; echo "rms $i exit $? in $((SECONDS-t0)) s"
  [ $i = 1 ] && { t0=$SECONDS; timeout 150 $K --config $S/soft.ini --out $R --run-id soft-1 > $OUT/logs/soft-1.txt 2>&1; echo "soft exit $? in $((SECONDS-t0)) s"; }
  tar -C $OUT -czf $OUT/g2-runs.tgz r logs probe2.csv
done
python3 $S/summ2.py $R/rms-1 $R/rms-2
python3 $S/summ2.py $R/soft-1
grep -h -i 'error\|fail\|not in' $OUT/logs/*.txt | head -10
t0=$SECONDS; timeout 150 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --ini experiments/rowsweep_rmsnorm.ini --cases n128,n512,n1024,n2048,n4096 --out $R/torch > $OUT/logs/torch.txt 2>&1; echo "torch_rows rms exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 80 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --ini experiments/rowsweep_softmax.ini --cases n128,n1024 --out $R/torch > $OUT/logs/torch-s.txt 2>&1; echo "torch_rows soft exit $? in $((SECONDS-t0)) s"
tail -32 $OUT/logs/torch.txt; tail -14 $OUT/logs/torch-s.txt
tar -C $OUT -czf $OUT/g2-runs.tgz r logs probe2.csv
rm -rf $R $OUT/logs $OUT/copy_probe
