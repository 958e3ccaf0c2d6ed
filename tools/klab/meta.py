"""A run folder's meta.ini as the PyTorch tools leave it: klab writes it (kb_write_meta); this says
what [torch] holds and whether the folder's meta.ini is klab's own run's, which is kept."""
import os
import re


def torch_meta(torch):
    """What meta.ini's [torch] says of the PyTorch that made a folder's rows."""
    return {"torch.version": torch.__version__, "torch.cuda": torch.version.cuda or "none"}


def meta_is_klabs(folder):
    """True where <folder>/meta.ini is klab's own run's (klab --with-torch runs torch_rows.py in its run
    folder, after writing it): it describes the run and is kept. One the PyTorch tools wrote has [torch]."""
    try:
        with open(os.path.join(folder, "meta.ini")) as f:
            return not re.search(r"^\[torch\]$", f.read(), re.M)
    except FileNotFoundError:
        return False
