#!/usr/bin/env bash
# Builds the real kustomize (go.mod beside this file) once into the tool cache; prints the bin
# directory as its last line. `kustomize version` names the pinned release.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$(bash "$here/../../../scripts/go-tools.sh" kustomize "$here" "kustomize" sigs.k8s.io/kustomize/api/provenance.version | tail -n 1)"
# go-tools.sh names a binary after its package's last element, here the major version "v5".
ln -sfn v5 "$bin/kustomize"
echo "$bin"
