#!/usr/bin/env bash
# npm run synth [-- options]: the GitOps bundle into dist/ (plain manifests, kustomization.yaml,
# previews) and the same bundle as a Helm chart with values in dist/helm/. Output is deterministic.
# Its options are in src/synth-options.ts (SYNTH_OPTIONS): npm run synth -- --help lists them.
set -euo pipefail
cd "$(dirname "$0")/.."

# Compiled code older than its sources is built first, so the script needs no npm run build before it.
build_if_stale() {
  if [ ! -f lib/src/app.js ] || [ ! -f lib/.tsbuildinfo ] || [ -n "$(find src imports -name '*.ts' -newer lib/.tsbuildinfo -print -quit 2>/dev/null)" ]; then
    tsc -p tsconfig.json
    # tsc leaves its build info as it was when nothing changed; the next run must not build again.
    touch lib/.tsbuildinfo
  fi
}

synthesize() {
  # src/app.ts writes the Helm chart into $out/helm/ too (src/gitops/helm/), from the same constructs.
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
# src/app.ts parses and checks the options and every resource before cdk8s synth empties its
# output folder, and prints the options as CDK8S_OPERATORS_* variables (or the help) for this
# script to hand on: cdk8s synth runs app.js itself and passes it no arguments.
settings="$(node lib/src/app.js --check "$@")"
case "$settings" in
  CDK8S_OPERATORS_*) ;;
  *) printf '%s\n' "$settings"; exit 0 ;;
esac
while IFS= read -r assignment; do export "${assignment?}"; done <<<"$settings"
out="$CDK8S_OPERATORS_OUTPUT"
synthesize
# Only the project's own dist/ speaks for imports/; a synth elsewhere leaves the checkout alone.
if [ "$(realpath -m "$out")" = "$PWD/dist" ] && imports_changed; then
  echo "synth: imports/ regenerated from the CRDs (commit it with dist/); building and synthesizing once more with it" >&2
  tsc -p tsconfig.json
  synthesize
fi
