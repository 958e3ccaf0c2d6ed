#!/usr/bin/env bash
# The product speaks of runs, commits, GPUs, cases and kernels: no tracked file says how the work that
# made it was organised ("sitting") or cites a tracker's issue numbers ("issue 26", "#22"). Prints
# each offending line as file:line and exits 1; 0 when there is none.
set -euo pipefail
cd "$(dirname "$0")/../.."
pattern='sitting|issue #?[0-9]|(^|[^&[:alnum:]])#(2|3)[0-9]\b' # "&#39;" is an HTML entity, not an issue
self=tools/checks/vocabulary.sh
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git ls-files -z; }
else
  files() { find . -type f -not -path './.git/*' -not -path './build*' -print0 | sed -z 's#^\./##'; }
fi
hits=$(files | grep -zv -e "^$self\$" | xargs -0 grep -nIiE "$pattern" -- 2>/dev/null || true)
if [ -n "$hits" ]; then
  printf '%s\n' "$hits" | cut -c1-200
  echo "$(printf '%s\n' "$hits" | wc -l) line(s) speak of sittings or issue numbers" >&2
  exit 1
fi
echo "vocabulary: no tracked file speaks of sittings or issue numbers"
