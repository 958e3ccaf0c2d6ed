#!/bin/bash
# twelfth sitting, call 6: why klab's streaming plan trails torch.compile's two-pass kernel at fp32 1024x32768 (klab 79.6-82.0 %, compile 98.6 % of the copy): DRAM bytes, L2 hit rates of each pass, occupancy and stalls, ncu, one launch each
C=$1
t0=$SECONDS; KLAB_COMMIT=$C KLAB_TARGETS="klab rmsnorm" bash tools/gpu-run.sh build > $OUT/build.txt 2>&1 || { tail -30 $OUT/build.txt; exit 1; }; echo "build $((SECONDS-t0)) s"
export LD_LIBRARY_PATH=/opt/deps/usr/lib/x86_64-linux-gnu; rm -f $OUT/log.txt $OUT/results.tgz
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__block_size,launch__grid_size,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
t0=$SECONDS; timeout 150 ncu --clock-control none --metrics $M --kernel-name regex:row_kernel build-gpu/klab --no-isolate --verify-only --config .sit/s12/n6.ini --out $OUT/r --run-id n6 > $OUT/ncu-klab.txt 2>&1; echo "ncu klab exit $? in $((SECONDS-t0)) s"
grep -E "row_kernel|duration|dram__bytes|hit_rate|srcunit|throughput|warps_active|registers|block_size|grid_size|stalled" $OUT/ncu-klab.txt | sed 's/  */ /g' | cut -c1-160
t0=$SECONDS; timeout 150 ncu --clock-control none --profile-from-start off --metrics $M python3 .sit/s12/tc6.py > $OUT/ncu-tc.txt 2>&1; echo "ncu torch exit $? in $((SECONDS-t0)) s"
grep -E "triton|duration|dram__bytes|hit_rate|srcunit|throughput|warps_active|registers|block_size|grid_size|stalled" $OUT/ncu-tc.txt | sed 's/  */ /g' | cut -c1-160
tar -C $OUT -czf $OUT/g6.tgz ncu-klab.txt ncu-tc.txt build.txt; rm -rf $OUT/*.txt $OUT/r
