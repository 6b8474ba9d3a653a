#!/usr/bin/env bash
# npm run synth [-- options]: the GitOps bundle into dist/ (plain manifests, kustomization.yaml,
# previews) and the same bundle as a Helm chart in dist/helm/. Output is deterministic.
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
helm_instances=false
while [ $# -gt 0 ]; do
  case "$1" in
    --output) out="${2:?--output needs a folder}"; shift ;;
    --instances) export CDK8S_OPERATORS_INSTANCES="${2:?--instances needs a folder}"; shift ;;
    --examples) export CDK8S_OPERATORS_EXAMPLES=true ;;
    --helm-instances) helm_instances=true ;;
    --secret-copy) export CDK8S_OPERATORS_SECRET_COPY=true ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "synth: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out="$1" ;;
  esac
  shift
done

# cdk8s synth empties its output folder first: check every resource before it runs.
node lib/src/main.js --check >/dev/null
cdk8s synth --no-check-upgrade --output "$out"
version="$(node -p 'require("./package.json").version')"
cdk8s synth --no-check-upgrade --format helm --chart-version "$version" --output "$out/helm"
# cdk8s names the chart after the working directory; a chart's identity must not depend on where it was built.
sed -i -e 's/^name: .*/name: cdk8s-operators/' -e 's/^description: .*/description: Kubernetes operators as cdk8s code (CRDs, controller, RBAC)/' "$out/helm/Chart.yaml"
# Helm installs CRDs from crds/ (filled from cdk8s.yaml's import of our CRDs) before any
# template; the previews and the kustomization are for Git only, and the resources are
# the operator's users', in the chart only when asked for.
rm -rf "$out/helm/templates/0-crds.k8s.yaml" "$out/helm/templates/preview" "$out/helm/templates/kustomization.yaml"
if [ "$helm_instances" != true ]; then rm -f "$out/helm/templates/2-instances.k8s.yaml" "$out/helm/templates/3-examples.k8s.yaml"; fi
# The controller image comes from the chart's values, so a release can point at its own registry and tag.
# (The guitar UI runs the same image, so every line naming it gets the expression.)
image="$(grep -o 'image: cdk8s-operators/controller:.*' "$out/helm/templates/1-operator.k8s.yaml" | head -1 | cut -d' ' -f2)"
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
