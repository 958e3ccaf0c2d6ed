"""--phases-out FILE: where a PyTorch run's time went, summed over its units, as an INI file with a
[phases] section. compile_ms is PyTorch's own (each compiled callable's first call, each CUDA graph's
capture: torch_bench.TorchBench.compile_ms); the others are the phases libklab_bench announces and
times while it runs (kb_phase_ms): setup (the plugin's, the input fills), reference (the float64
reference), verify (the plugin's profiles and each callable verified), timing (the interleaved
rounds, the rotated copies made) and teardown."""

KEYS = ("compile_ms", "reference_ms", "verify_ms", "timing_ms", "setup_ms", "teardown_ms")


class Phases:
    def __init__(self):
        self.ms = dict.fromkeys(KEYS, 0.0)
        self.units = 0

    def add(self, bench, compile_ms=0.0):
        """The phases of a plugin opened by libklab_bench (bench.Bench), and the compiles around it."""
        self.ms["compile_ms"] += compile_ms
        for key in KEYS[1:]:
            self.ms[key] += bench.phase_ms(key[:-3])

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("[phases]\n")
            for key in KEYS:
                f.write(f"{key} = {self.ms[key]:.3f}\n")
            # a comment, not a key: klab reads every key of [phases] as PHASE_ms (core/evidence/phases.c)
            f.write(f"; units = {self.units}\n")
