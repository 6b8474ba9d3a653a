#!/usr/bin/env bash
# Static checks of rendered manifests: runs kube-score (built by build.sh, configured by
# kube-score.conf) over every YAML file under the given directories or files, prints its
# findings and exits non-zero on any finding that kube-score.conf does not accept with a
# reason. Usage: bash test/lint/check-manifests.sh <dir-or-file>...
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -gt 0 ] || { echo "usage: $0 <dir-or-file>..." >&2; exit 2; }

files=()
for path in "$@"; do
  [ -e "$path" ] || { echo "check-manifests: $path does not exist" >&2; exit 2; }
  while IFS= read -r -d '' f; do files+=("$f"); done \
    < <(find "$path" -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z)
done
# A check that looked at nothing must not pass.
[ ${#files[@]} -gt 0 ] || { echo "check-manifests: no *.yaml or *.yml under $*" >&2; exit 1; }

bin="$(bash "$here/build.sh" | tail -n 1)"
# Under `npm run`, `node` is the project's Node 24; run directly, prefer it too.
node=node
[ -x "$root/node_modules/.bin/node" ] && node="$root/node_modules/.bin/node"

"$node" "$here/kube-score.mjs" "$bin/kube-score" "$here/kube-score.conf" "${files[@]}"
