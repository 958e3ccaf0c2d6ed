#!/usr/bin/env python3
"""PyTorch beside klab, measured by klab: the command line of klab.rows (tools/klab/rows.py says what it
does and how; `--help` lists the options). klab --with-torch runs this file."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from klab.rows import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
