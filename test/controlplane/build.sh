#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kwok) from the pinned modules beside this script, once, into a cache
# outside the repo keyed by the Kubernetes version and the modules' checksums.
# kwok, a client of the API server rather than a part of the release, is pinned in the default
# release's module: built with the control plane's own packages it compiles little of its own
# (its 1,000 packages share 850 with the control plane), and one kwok serves both releases.
# KUBERNETES_VERSION picks the release: a minor with a tools-<minor> module here (1.37, the
# default, or 1.36), or that module's exact version (v1.36.3). Prints the bin directory as its
# last line. Re-running with a warm cache takes well under a second.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
default_minor=1.37
minor="$(echo "${KUBERNETES_VERSION:-$default_minor}" | sed -E 's/^v//; s/^([0-9]+\.[0-9]+)(\.[0-9]+)?$/\1/')"
tools="$here/tools-$minor"
kwok="$here/tools-$default_minor"
if [ ! -f "$tools/go.mod" ]; then
  supported="$(cd "$here" && ls -d tools-*/ | sed 's/^tools-//; s/\/$//' | paste -sd' ')"
  echo "build.sh: KUBERNETES_VERSION=${KUBERNETES_VERSION:-} is not a supported release (supported: $supported)" >&2
  exit 1
fi

k8s_version="$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" { print $3 }' "$tools/go.mod")"
[ -n "$k8s_version" ] || { echo "build.sh: no 'require k8s.io/kubernetes vX' line in $tools/go.mod" >&2; exit 1; }
case "${KUBERNETES_VERSION:-}" in
  *.*.*) [ "v${KUBERNETES_VERSION#v}" = "$k8s_version" ] || { echo "build.sh: KUBERNETES_VERSION=$KUBERNETES_VERSION, but tools-$minor pins $k8s_version" >&2; exit 1; } ;;
esac
go_version="$(go env GOVERSION)"
key="$(cat "$tools/go.mod" "$tools/go.sum" "$kwok/go.mod" "$kwok/go.sum" "$0" <(echo "$go_version") | sha256sum | cut -c1-12)"

cache_root="${CDK8S_OPERATORS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cdk8s-operators}"
bin="$cache_root/controlplane/$k8s_version-$key/bin"
binaries=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

complete() { for b in "${binaries[@]}"; do [ -x "$bin/$b" ] || return 1; done; }
if complete; then echo "$bin"; exit 0; fi

staging="$(mktemp -d "$cache_root/controlplane/.build-XXXXXX" 2>/dev/null || { mkdir -p "$cache_root/controlplane"; mktemp -d "$cache_root/controlplane/.build-XXXXXX"; })"
trap 'rm -rf "$staging"' EXIT

echo "building the control plane $k8s_version into $bin (a cold build takes a while; later runs reuse it)" >&2
start=$SECONDS
export CGO_ENABLED=0
# Without these the binaries report v0.0.0-master, which clients treat as unknown.
version_flags="-X k8s.io/component-base/version.gitVersion=$k8s_version -X k8s.io/client-go/pkg/version.gitVersion=$k8s_version"
version_flags+=" -X k8s.io/component-base/version.gitMajor=$(echo "${k8s_version#v}" | cut -d. -f1)"
version_flags+=" -X k8s.io/component-base/version.gitMinor=$(echo "${k8s_version#v}" | cut -d. -f2)"
ldflags="-s -w $version_flags"
# The binaries are stripped (-s -w), so DWARF the compiler wrote would be thrown away at link.
nodwarf=-gcflags=all=-dwarf=false

# One go build for the binaries of a module shares its package work between them.
kubernetes=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler go.etcd.io/etcd/server/v3)
if [ "$kwok" = "$tools" ]; then
  (cd "$tools" && go build -trimpath "$nodwarf" -ldflags "$ldflags" -o "$staging/" "${kubernetes[@]}" sigs.k8s.io/kwok/cmd/kwok)
else
  (cd "$tools" && go build -trimpath "$nodwarf" -ldflags "$ldflags" -o "$staging/" "${kubernetes[@]}")
  (cd "$kwok" && go build -trimpath "$nodwarf" -ldflags "-s -w" -o "$staging/kwok" sigs.k8s.io/kwok/cmd/kwok)
fi
# etcd's main package is the root of go.etcd.io/etcd/server/v3, so go build names it after that path.
for built in server v3; do [ ! -x "$staging/$built" ] || mv "$staging/$built" "$staging/etcd"; done

# kwok's ready-made stage configs ship in its module; keep them next to the binary.
kwok_dir="$(cd "$kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)"
mkdir -p "$staging/kwok-stages"
cp "$kwok_dir/kustomize/stage/node/fast/node-initialize.yaml" "$kwok_dir"/kustomize/stage/pod/general/pod-*.yaml "$staging/kwok-stages/"

mkdir -p "$(dirname "$bin")"
rm -rf "$bin"
mv "$staging" "$bin"
trap - EXIT
echo "built the control plane in $((SECONDS - start)) s" >&2
echo "$bin"
