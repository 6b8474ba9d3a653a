#!/usr/bin/env bash
# Builds the Go programs the tests run (each build.sh below, cached by its checksum, so a warm
# cache takes no time) side by side: one `go build` leaves cores idle while it links or waits on
# one package, which another build fills. Each build writes its own log, printed with its time
# once all are done; fails naming every build that failed.
#
# usage: test-tools.sh [build...]    (default: all of them, the control planes first); a build is a
# build.sh, optionally after VAR=value settings, e.g. "KUBERNETES_VERSION=1.36 test/controlplane/build.sh"
# TEST_TOOLS_JOBS: builds at a time (default: the number of cores, at least 2; 1 builds them one after another)
set -euo pipefail
cd "$(dirname "$0")/.."

builds=("$@")
# Longest first, so the control plane's 10 minutes start at once and the others fill around it.
[ ${#builds[@]} -gt 0 ] || builds=(test/controlplane/build.sh "KUBERNETES_VERSION=1.36 test/controlplane/build.sh" test/helm/build.sh test/gitops/engines/build.sh test/mirror/build.sh test/gitops/build.sh test/gitops/kustomize/build.sh test/lint/build.sh)
cores="$(nproc)"
jobs="${TEST_TOOLS_JOBS:-$(( cores > 2 ? cores : 2 ))}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
started=$SECONDS

for i in "${!builds[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  (
    start=$SECONDS
    read -ra words <<<"${builds[$i]}"
    if env "${words[@]:0:${#words[@]}-1}" bash "${words[-1]}" >"$logs/$i.log" 2>&1; then status=ok; else status=FAILED; fi
    echo "$status $((SECONDS - start))" >"$logs/$i.status"
  ) &
done
wait

failed=()
for i in "${!builds[@]}"; do
  read -r status seconds <"$logs/$i.status" 2>/dev/null || { status=FAILED; seconds="?"; }
  echo "--- ${builds[$i]}: $status in $seconds s"
  sed 's/^/    /' "$logs/$i.log"
  [ "$status" = ok ] || failed+=("${builds[$i]}")
done
echo "Go tools: ${#builds[@]} builds, $jobs at a time on $cores cores, in $((SECONDS - started)) s"
[ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]} (logs above)" >&2; exit 1; }
