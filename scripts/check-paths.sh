#!/usr/bin/env bash
# Fails when a tracked file other than documentation refers to a path outside
# the repository: a user's clone has nothing beside it, so a test, bench or
# example that reads a sibling folder of the checkout or an absolute path on
# this machine works here and fails for everyone else. The system's own pseudo-files (/proc,
# /dev) are not "outside": every Linux machine has them.
set -euo pipefail
cd "$(dirname "$0")/.."

not_docs=(':!*.md' ':!Cargo.lock')
status=0
# A sibling folder of the checkout, or an absolute path on a developer's machine.
if git grep -nIE '\.\./shared\b|"/(work|home|root|Users|tmp|mnt|media|opt|srv)/' -- "${not_docs[@]}"; then
    echo "error: the lines above refer to paths outside the repository"
    status=1
fi
# A relative path climbing above the repository from the file's own folder
# (more `../` than the file is deep).
if git grep -noIE '(\.\./){2,}' -- "${not_docs[@]}" | awk -F: '
    { depth = gsub("/", "/", $1); ups = gsub("\\.\\./", "", $3)
      if (ups > depth) { print $1 ":" $2 ": climbs " ups " folders from depth " depth; bad = 1 } }
    END { exit bad ? 0 : 1 }'; then
    echo "error: the lines above climb out of the repository"
    status=1
fi
exit $status
