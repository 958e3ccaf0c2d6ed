#!/bin/bash
# eleventh sitting, call 3: the row-length sweeps (rmsnorm, softmax; N = 128..262144 at 2^25; fp16, fp32) with the register plans as the own choice (the code is e4e955e's row skeleton: a799319), klab alone then with PyTorch (eager, F.*, torch.compile) in the same rounds
C=$1
KLAB_COMMIT=$C KLAB_TARGETS="klab klab_bench rmsnorm softmax" timeout 540 bash tools/gpu-run.sh rows-sweep > $OUT/sweep.txt 2>&1; echo "rows-sweep exit $?"
tail -60 $OUT/sweep.txt | cut -c1-180
gzip -f $OUT/sweep.txt
