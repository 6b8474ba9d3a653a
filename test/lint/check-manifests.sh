#!/usr/bin/env bash
# Static checks of rendered manifests: runs kube-score (built by build.sh, configured by
# kube-score.conf) over every YAML file under the given directories or files (a Helm chart,
# a folder with Chart.yaml, rendered with its default values by the real helm), prints its
# findings and exits non-zero on any finding that kube-score.conf does not accept with a
# reason. With --examples, also the children of every kind's example (synthesized into a temp
# folder: dist/ holds only the children of resources a team declared, so a kind's own output
# would go unchecked until someone declares one).
# Usage: bash test/lint/check-manifests.sh [--examples] <dir-or-file>...
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
temp="$(mktemp -d)"
trap 'rm -rf "$temp"' EXIT
if [ "${1:-}" = --examples ]; then
  shift
  mkdir "$temp/no-instances"
  bash "$root/scripts/synth.sh" --instances "$temp/no-instances" --examples --output "$temp/examples" >/dev/null
  echo "check-manifests: also the children of every kind's example ($temp/examples/preview)"
  set -- "$@" "$temp/examples/preview"
fi
[ $# -gt 0 ] || { echo "usage: $0 [--examples] <dir-or-file>..." >&2; exit 2; }

files=()
charts=()
for path in "$@"; do
  [ -e "$path" ] || { echo "check-manifests: $path does not exist" >&2; exit 2; }
  while IFS= read -r -d '' f; do charts+=("$(dirname "$f")"); done < <(find "$path" -name Chart.yaml -print0 | sort -z)
  # A chart's files are templates and values, not manifests.
  while IFS= read -r -d '' f; do files+=("$f"); done \
    < <(find "$path" -type d -exec test -e '{}/Chart.yaml' ';' -prune -o -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z)
done
if [ ${#charts[@]} -gt 0 ]; then
  helm="$(bash "$root/test/helm/build.sh" | tail -n 1)/helm"
  for chart in "${charts[@]}"; do
    out="$temp/$(echo "$chart" | tr / _).rendered.yaml"
    "$helm" template cdk8s-operators "$chart" >"$out"
    files+=("$out")
  done
fi
# A check that looked at nothing must not pass.
[ ${#files[@]} -gt 0 ] || { echo "check-manifests: no *.yaml or *.yml under $*" >&2; exit 1; }

bin="$(bash "$here/build.sh" | tail -n 1)"
# Under `npm run`, `node` is the project's Node 24; run directly, prefer it too.
node=node
[ -x "$root/node_modules/.bin/node" ] && node="$root/node_modules/.bin/node"

"$node" "$here/kube-score.mjs" "$bin/kube-score" "$here/kube-score.conf" "${files[@]}"
