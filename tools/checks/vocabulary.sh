#!/usr/bin/env bash
# The product speaks of runs, commits, GPUs, cases and kernels: no tracked file names the rounds in
# which its work was organised or cites a tracker's numbers. Prints each offending line as file:line
# and exits 1; 0 when there is none. The words are spelled in pieces below, so this file does not
# say them either.
set -euo pipefail
cd "$(dirname "$0")/../.."
round_word=sit""ting tracker_word=iss""ue
pattern="$round_word|$tracker_word #?[0-9]|(^|[^&[:alnum:]])#(2|3)[0-9]\\b" # "&#39;" is an HTML entity
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files() { git ls-files -z; }
else
  files() { find . -type f -not -path './.git/*' -not -path './build*' -print0 | sed -z 's#^\./##'; }
fi
hits=$(files | xargs -0 grep -nIiE "$pattern" -- 2>/dev/null || true)
if [ -n "$hits" ]; then
  printf '%s\n' "$hits" | cut -c1-200
  echo "$(printf '%s\n' "$hits" | wc -l) line(s) speak of how the work was organised" >&2
  exit 1
fi
echo "vocabulary: no tracked file speaks of how the work was organised"
