#!/bin/bash
# twentieth sitting, call 1 (issue 22): the tile plan (row_tile.cuh) for short ragged rows. (1) build;
# (2) test_gpu_rows (its forced tile cases, 65537x17's own choice); (3) tile against its register twin,
# same process, two processes: rmsnorm and softmax over ragged short rows (.sit/s20/ini); (4) torch_rows
# at rmsnorm 65537x17 and ragged (the own choice now the tile plan at 65537x17).
C=$1; export KLAB_COMMIT=$C
S=.sit/s20
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$SECONDS; KLAB_TARGETS="klab rmsnorm softmax test_gpu_rows" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu
K=build-gpu/klab; R=$OUT/r; mkdir -p $R $OUT/logs
t0=$SECONDS; timeout 200 ctest --test-dir build-gpu -R 'test_gpu_rows' --output-on-failure --timeout 195 > $OUT/logs/ctest.txt 2>&1; echo "ctest exit $? in $((SECONDS-t0)) s"
grep -E "Test +#|tests passed|^not ok|Failed|FAIL|error" $OUT/logs/ctest.txt | head -20
t0=$SECONDS
for rep in 0 1; do for p in rmsnorm softmax; do
  timeout 100 $K --config $S/ini/ab_$p.ini --out $R --run-id ab-$p-$rep > $OUT/logs/ab-$p-$rep.txt 2>&1 || echo "ab $p $rep exit $?"
done; done; echo "A/B in $((SECONDS-t0)) s"
python3 $S/summ.py $R
t0=$SECONDS; timeout 90 python3 tools/torch_rows.py --build build-gpu --budget-ms 300 --plugins rmsnorm --cases 65537x17,ragged --out $R/torch-r > $OUT/logs/torch-r.txt 2>&1; echo "torch_rows exit $? in $((SECONDS-t0)) s"
grep -hE "torch.compile|torch.eager" $OUT/logs/torch-r.txt | grep ratio
tar -C $OUT -czf $OUT/g1-runs.tgz r logs; rm -rf $R $OUT/logs
