"""klab's Python tools, one module a concept. klab's rules (INI files, statistics, the CSV row, plugin
descriptions) are libklab_bench's and are asked of it through bench.py, the one module that uses
ctypes; nothing here writes them again. Importing the package needs neither torch nor a GPU; torch is
imported by torch_cases.need_torch() where PyTorch runs.

    bench        libklab_bench through ctypes: INI files, descriptors, statistics, CSV rows, a plugin on a GPU
    ini          an INI's cases as klab resolved them
    units        --units: the exact (case, dtype) units of a run
    phases       --phases-out: where a run's time went
    meta         whose meta.ini a run folder holds, and what [torch] says
    torch_cases  what a plugin's PyTorch module answers for a case (Spec), launch modes, torch imported lazily
    torch_module a plugin's <plugin>_torch.py beside its .so: found, loaded without torch, its contract checked
    torch_ops    PyTorch sequences several plugins' modules share
    torch_bench  PyTorch beside a plugin opened by libklab_bench: tensors, CUDA graphs, compiles
    compare      PyTorch rows beside the klab rows they stand for
    rows         tools/torch_rows.py
    decode_model PyTorch's decode step of decode_replay's cases
    decode       tools/torch_decode.py
    probes       tools/decode_probes.py
"""
