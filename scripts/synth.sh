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
  --runbook-url <url> where the alerts' runbook links point (default docs/monitoring.md): the
                      page's URL where your copy of this repository is browsed
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
    --runbook-url) export CDK8S_OPERATORS_RUNBOOK_URL="${2:?--runbook-url needs a URL}"; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "synth: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out="$1" ;;
  esac
  shift
done

# Compiled code older than its sources is built first, so the script needs no npm run build before it.
build_if_stale() {
  if [ ! -f lib/src/main.js ] || [ ! -f lib/.tsbuildinfo ] || [ -n "$(find src imports -name '*.ts' -newer lib/.tsbuildinfo -print -quit 2>/dev/null)" ]; then
    tsc -p tsconfig.json
    # tsc leaves its build info as it was when nothing changed; the next run must not build again.
    touch lib/.tsbuildinfo
  fi
}

synthesize() {
  # cdk8s synth empties its output folder first: check every resource before it runs.
  node lib/src/main.js --check >/dev/null
  # main.ts writes the Helm chart into $out/helm/ too (src/gitops/helm/), from the same constructs.
  cdk8s synth --no-check-upgrade --output "$out"
}

# imports/ holds the typed classes `cdk8s import` makes from our CRDs, for TypeScript resources
# (src/instances/*.ts). Keeps them in step with $out's CRDs; says whether they changed.
imports_changed() {
  local crds generated
  crds="$(realpath "$out/0-crds.k8s.yaml")"
  generated="$(mktemp -d)"
  # In a folder of its own: next to cdk8s.yaml, cdk8s import would add the file to its imports list.
  (cd "$generated" && cdk8s import "$crds" --output classes --no-check-upgrade --language typescript >/dev/null)
  if diff -r -q "$generated/classes" imports >/dev/null 2>&1; then rm -rf "$generated"; return 1; fi
  rm -rf imports && mv "$generated/classes" imports && rm -rf "$generated"
}

# Run directly too, as under `npm run`: the project's Node 24 and cdk8s come from node_modules/.bin.
[ -x node_modules/.bin/cdk8s ] || { echo "synth: node_modules/ is missing: run npm ci first" >&2; exit 1; }
PATH="$PWD/node_modules/.bin:$PATH"
build_if_stale
synthesize
# Only the project's own dist/ speaks for imports/; a synth elsewhere leaves the checkout alone.
if [ "$(realpath -m "$out")" = "$PWD/dist" ] && imports_changed; then
  echo "synth: imports/ regenerated from the CRDs (commit it with dist/); building and synthesizing once more with it" >&2
  tsc -p tsconfig.json
  synthesize
fi
