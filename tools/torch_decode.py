#!/usr/bin/env python3
"""PyTorch's decode step of decode_replay's cases, timed as klab times steps: the command line of
klab.decode (tools/klab/decode.py says what it does and how; `--help` lists the options)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from klab.decode import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
