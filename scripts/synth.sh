#!/usr/bin/env bash
# npm run synth [-- options]: the GitOps bundle into dist/ (plain manifests, kustomization.yaml,
# previews) and the same bundle as a Helm chart with values in dist/helm/. Output is deterministic.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
usage: npm run synth -- [options]   (or: bash scripts/synth.sh [options] [output-folder])

  --output <dir>      where to write (default dist; a bare folder argument means the same)
  --instances <dir>   the team's resources to declare (default src/instances)
  --examples          add the built-in example of each kind (3-examples.k8s.yaml)
  --helm-instances    put the team's resources (and examples) into the Helm chart's templates too
  --secret-copy       let the controller copy Secrets (CopyratorRule ruleType secret): Secret
                      rules in its ClusterRole and --enable-secrets on its command line
  -h, --help          show this help

A resource that is not valid stops the synth before anything is written.
USAGE
}

out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --output) out="${2:?--output needs a folder}"; shift ;;
    --instances) export CDK8S_OPERATORS_INSTANCES="${2:?--instances needs a folder}"; shift ;;
    --examples) export CDK8S_OPERATORS_EXAMPLES=true ;;
    --helm-instances) export CDK8S_OPERATORS_HELM_INSTANCES=true ;;
    --secret-copy) export CDK8S_OPERATORS_SECRET_COPY=true ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "synth: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out="$1" ;;
  esac
  shift
done

# cdk8s synth empties its output folder first: check every resource before it runs.
node lib/src/main.js --check >/dev/null
# main.ts writes the Helm chart into $out/helm/ too (src/gitops/helm/), from the same constructs.
cdk8s synth --no-check-upgrade --output "$out"
