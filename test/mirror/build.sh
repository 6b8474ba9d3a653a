#!/usr/bin/env bash
# Builds the real programs the RegistryMirror tests run, once, into a cache outside the repo
# keyed by the module's files, this script and the Go version:
#   registry          distribution's registry (the `tool` directive of tools/go.mod), the
#                     program of the registry image the cache's StatefulSet runs;
#   containerd-hosts  containerd's own hosts.toml resolution, as its CRI plugin calls it.
# Prints the bin directory as its last line. Re-running with a warm cache takes no time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="$here/tools"

command -v go >/dev/null || { echo "build.sh: the mirror test tools are built with Go (>= 1.24 for tool directives); none on PATH" >&2; exit 1; }
go_version="$(go env GOVERSION)"
key="$(cat "$tools/go.mod" "$tools/go.sum" "$tools"/*/*.go "${BASH_SOURCE[0]}" <(echo "$go_version") | sha256sum | cut -c1-12)"

cache_root="${CDK8S_OPERATORS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdk8s-operators}"
bin="$cache_root/mirror/$key/bin"
# The `tool` packages, then the module's own main packages; one binary each, named after the last path element.
mapfile -t packages < <(awk '$1 == "tool" { print $2 }' "$tools/go.mod"; cd "$tools" && go list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./...)

complete() { for p in "${packages[@]}"; do [ -x "$bin/${p##*/}" ] || return 1; done; }
if complete; then echo "$bin"; exit 0; fi

mkdir -p "$cache_root/mirror"
staging="$(mktemp -d "$cache_root/mirror/.build-XXXXXX")"
trap 'rm -rf "$staging"' EXIT

echo "building the mirror test tools into $bin (once; later runs reuse them)" >&2
start=$SECONDS
export CGO_ENABLED=0
for p in "${packages[@]}"; do
  module="$(cd "$tools" && go list -f '{{with .Module}}{{.Path}} {{.Version}}{{end}}' "$p")"
  # distribution's release builds stamp their version the same way, so `registry --version` names it.
  (cd "$tools" && go build -trimpath -ldflags "-s -w -X github.com/distribution/distribution/v3/version.version=${module#* }" -o "$staging/${p##*/}" "$p")
  echo "  ${p##*/}: $module" >&2
done

mkdir -p "$(dirname "$bin")"
rm -rf "$bin"
mv "$staging" "$bin"
trap - EXIT
echo "built the mirror test tools in $((SECONDS - start)) s" >&2
echo "$bin"
