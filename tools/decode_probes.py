#!/usr/bin/env python3
"""What a decode_replay run's tail is made of: the command line of klab.probes (tools/klab/probes.py says
what it prints and how; `--help` lists the options)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from klab.probes import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
