#!/bin/bash
# twelfth sitting, call 7: Triton's compiled RMSNorm kernel at fp32 1024x32768 (its cache: cubin, ptx, json) and ncu's source view (SASS with stall samples) of it beside klab's own choice and klab's streaming plan 1024x4, for an instruction-level comparison of the same DRAM traffic issued at different speeds
C=$1
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
export TRITON_CACHE_DIR=$OUT/tcache
t0=$SECONDS; timeout 120 python3 .sit/s12/tc6.py > $OUT/tc.txt 2>&1; echo "triton compile exit $? in $((SECONDS-t0)) s"
find $OUT/tcache -name "*.json" | head -5; for j in $(find $OUT/tcache -name "triton_red*.json"); do python3 -c "import json,sys; d=json.load(open('$j')); print({k:d.get(k) for k in ('name','num_warps','num_stages','shared','maxnreg')})"; done
t0=$SECONDS; timeout 150 ncu --clock-control none --profile-from-start off --set full --import-source yes -o $OUT/tri python3 .sit/s12/tc6.py > $OUT/ncu-tri.txt 2>&1; echo "ncu triton exit $? in $((SECONDS-t0)) s"
t0=$SECONDS; timeout 150 ncu --clock-control none --set full --import-source yes --kernel-name regex:row_kernel -o $OUT/klab build-gpu/klab --no-isolate --verify-only --config .sit/s12/n7.ini --out $OUT/r --run-id n7 > $OUT/ncu-klab.txt 2>&1; echo "ncu klab exit $? in $((SECONDS-t0)) s"
for rep in tri klab; do ncu -i $OUT/$rep.ncu-rep --page source --csv --print-source sass > $OUT/src-$rep.csv 2>&1; echo "$rep source: $(wc -l < $OUT/src-$rep.csv) lines"; ncu -i $OUT/$rep.ncu-rep --page details --csv > $OUT/det-$rep.csv 2>&1; done
head -3 $OUT/src-tri.csv | cut -c1-400
tar -C $OUT -czf $OUT/g7.tgz tcache src-tri.csv src-klab.csv det-tri.csv det-klab.csv ncu-tri.txt ncu-klab.txt tc.txt; rm -rf $OUT/tcache $OUT/*.csv $OUT/*.txt $OUT/r $OUT/*.ncu-rep
