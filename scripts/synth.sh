#!/usr/bin/env bash
# npm run synth: the GitOps bundle into dist/ (plain manifests, kustomization.yaml, previews)
# and the same bundle as a Helm chart in dist/helm/. Output is deterministic.
set -euo pipefail
cd "$(dirname "$0")/.."
cdk8s synth --no-check-upgrade
version="$(node -p 'require("./package.json").version')"
cdk8s synth --no-check-upgrade --format helm --chart-version "$version" --output dist/helm
# cdk8s names the chart after the working directory; a chart's identity must not depend on where it was built.
sed -i -e 's/^name: .*/name: cdk8s-operators/' -e 's/^description: .*/description: Kubernetes operators as cdk8s code (CRDs, controller, RBAC)/' dist/helm/Chart.yaml
# Helm installs CRDs from crds/ (filled from cdk8s.yaml's import of our CRDs) before any
# template; the examples, previews and kustomization are for Git only.
rm -rf dist/helm/templates/0-crds.k8s.yaml dist/helm/templates/2-examples.k8s.yaml dist/helm/templates/preview dist/helm/templates/kustomization.yaml
