#!/usr/bin/env bash
# Builds the engines that apply dist/ in the first-sync tests (go.mod beside this file): kubectl,
# from k8s.io/kubectl at the control plane's release, and flux-apply, Flux's kustomize-controller
# apply over github.com/fluxcd/pkg/ssa. Once into the tool cache, keyed by go.mod, go.sum and the
# sources; prints the bin directory as its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../../../scripts/go-tools.sh" gitops-engines "$here" "kubectl and Flux's apply engine"
