#!/usr/bin/env bash
# Builds the manifest linters pinned by the `tool` directives of test/lint/tools/go.mod
# (today kube-score), once, into a cache outside the repo keyed by the module's files,
# this script and the Go version. Prints the bin directory as its last line. Re-running
# with a warm cache takes no time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="$here/tools"

command -v go >/dev/null || { echo "build.sh: the manifest linters are built with Go (>= 1.24 for tool directives); none on PATH" >&2; exit 1; }
go_version="$(go env GOVERSION)"
key="$(cat "$tools/go.mod" "$tools/go.sum" "${BASH_SOURCE[0]}" <(echo "$go_version") | sha256sum | cut -c1-12)"

cache_root="${CDK8S_OPERATORS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdk8s-operators}"
bin="$cache_root/lint/$key/bin"
# One binary per `tool` line, named after the last element of its package path.
mapfile -t packages < <(awk '$1 == "tool" { print $2 }' "$tools/go.mod")
[ ${#packages[@]} -gt 0 ] || { echo "build.sh: no 'tool' directive in $tools/go.mod" >&2; exit 1; }

complete() { for p in "${packages[@]}"; do [ -x "$bin/${p##*/}" ] || return 1; done; }
if complete; then echo "$bin"; exit 0; fi

mkdir -p "$cache_root/lint"
staging="$(mktemp -d "$cache_root/lint/.build-XXXXXX")"
trap 'rm -rf "$staging"' EXIT

echo "building the manifest linters into $bin (once; later runs reuse them)" >&2
start=$SECONDS
export CGO_ENABLED=0
for p in "${packages[@]}"; do
  module="$(cd "$tools" && go list -f '{{.Module.Path}} {{.Module.Version}}' "$p")"
  # The release builds stamp their version into main.version; do the same so that
  # `kube-score version` says which release this is.
  (cd "$tools" && go build -trimpath -ldflags "-s -w -X main.version=${module#* }" -o "$staging/${p##*/}" "$p")
  echo "  ${p##*/}: $module" >&2
done

mkdir -p "$(dirname "$bin")"
rm -rf "$bin"
mv "$staging" "$bin"
trap - EXIT
echo "built the manifest linters in $((SECONDS - start)) s" >&2
echo "$bin"
