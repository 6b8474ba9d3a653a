#!/usr/bin/env bash
# npm run synth: the GitOps bundle into dist/ (plain manifests, kustomization.yaml, previews)
# and the same bundle as a Helm chart in dist/helm/. Output is deterministic.
# An output folder other than dist/ may be given (the freshness test synthesizes elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-dist}"
cdk8s synth --no-check-upgrade --output "$out"
version="$(node -p 'require("./package.json").version')"
cdk8s synth --no-check-upgrade --format helm --chart-version "$version" --output "$out/helm"
# cdk8s names the chart after the working directory; a chart's identity must not depend on where it was built.
sed -i -e 's/^name: .*/name: cdk8s-operators/' -e 's/^description: .*/description: Kubernetes operators as cdk8s code (CRDs, controller, RBAC)/' "$out/helm/Chart.yaml"
# Helm installs CRDs from crds/ (filled from cdk8s.yaml's import of our CRDs) before any
# template; the examples, previews and kustomization are for Git only.
rm -rf "$out/helm/templates/0-crds.k8s.yaml" "$out/helm/templates/2-examples.k8s.yaml" "$out/helm/templates/preview" "$out/helm/templates/kustomization.yaml"
# The controller image comes from the chart's values, so a release can point at its own registry and tag.
image="$(grep -o 'image: cdk8s-operators/controller:.*' "$out/helm/templates/1-operator.k8s.yaml" | cut -d' ' -f2)"
[ "$image" = "cdk8s-operators/controller:$version" ] || { echo "synth: the controller image in the chart is '$image', expected cdk8s-operators/controller:$version" >&2; exit 1; }
sed -i "s#image: $image\$#image: \"{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}\"#" "$out/helm/templates/1-operator.k8s.yaml"
echo "appVersion: \"$version\"" >>"$out/helm/Chart.yaml"
cat >"$out/helm/values.yaml" <<VALUES
# The controller image (npm run image builds it; the README says how to load it into a registry or a cluster).
image:
  repository: cdk8s-operators/controller
  # Empty means the chart's appVersion, the project's version.
  tag: ""
VALUES
