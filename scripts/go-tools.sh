#!/usr/bin/env bash
# Builds the programs of one pinned Go module (its `tool` directives, then its own main
# packages) once, into a cache outside the repo keyed by the module's files, its Go sources,
# these arguments, this script and the Go version. Prints the bin directory as its last line;
# with a warm cache it takes no time. Static binaries (CGO_ENABLED=0), one per package, named
# after the last element of its path.
#
# usage: go-tools.sh <cache-name> <module-dir> <what, for messages> [<Go variable set to the module's version>]
set -euo pipefail

name="${1:?cache name}" tools="${2:?module folder}" what="${3:?what is built}" version_var="${4:-}"
command -v go >/dev/null || { echo "go-tools.sh: $what are built with Go (>= 1.24 for tool directives); none on PATH" >&2; exit 1; }
go_version="$(go env GOVERSION)"
sources="$(find "$tools" -name '*.go' | sort)"
# Not the folder itself: every checkout of the same files shares one build.
key="$(cat "$tools/go.mod" "$tools/go.sum" $sources "${BASH_SOURCE[0]}" <(echo "$go_version $name $version_var") | sha256sum | cut -c1-12)"

cache_root="${CDK8S_OPERATORS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdk8s-operators}"
bin="$cache_root/$name/$key/bin"
mapfile -t packages < <(awk '$1 == "tool" { print $2 }' "$tools/go.mod"; cd "$tools" && go list -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./... 2>/dev/null)
[ ${#packages[@]} -gt 0 ] || { echo "go-tools.sh: no 'tool' directive or main package in $tools" >&2; exit 1; }

complete() { for p in "${packages[@]}"; do [ -x "$bin/${p##*/}" ] || return 1; done; }
if complete; then echo "$bin"; exit 0; fi

mkdir -p "$cache_root/$name"
# One build at a time per tool: a test that needs a tool CI is still building waits for that
# build (.ci/run starts the tests before every tool is built) rather than compiling it again.
exec 9>"$cache_root/$name/.lock"
flock 9
if complete; then echo "$bin"; exit 0; fi
staging="$(mktemp -d "$cache_root/$name/.build-XXXXXX")"
trap 'rm -rf "$staging"' EXIT

echo "building $what into $bin (once; later runs reuse them)" >&2
start=$SECONDS
export CGO_ENABLED=0
for p in "${packages[@]}"; do
  module="$(cd "$tools" && go list -f '{{with .Module}}{{.Path}} {{.Version}}{{end}}' "$p")"
  # Release builds stamp their version into a variable; doing the same makes `<tool> --version` name the release.
  ldflags="-s -w${version_var:+ -X $version_var=${module#* }}"
  # Stripped binaries (-s -w): DWARF the compiler wrote would be thrown away at link.
  (cd "$tools" && go build -trimpath -gcflags=all=-dwarf=false -ldflags "$ldflags" -o "$staging/${p##*/}" "$p")
  echo "  ${p##*/}: $module" >&2
done

mkdir -p "$(dirname "$bin")"
rm -rf "$bin"
mv "$staging" "$bin"
trap - EXIT
echo "built $what in $((SECONDS - start)) s" >&2
echo "$bin"
