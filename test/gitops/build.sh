#!/usr/bin/env bash
# Builds gitops-health (tools/gitops-health: Argo CD's Lua engine, gopher-lua, and Flux's and
# kubectl's kstatus, from sigs.k8s.io/cli-utils) once into the tool cache; prints the bin
# directory as its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "$here/../../scripts/go-tools.sh" gitops "$here/tools" "the GitOps health tools"
