#!/usr/bin/env bash
# Builds the real Helm pinned by the `tool` directive of test/helm/tools/go.mod once into the
# tool cache; prints the bin directory as its last line. The chart tests run it against dist/helm.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Helm's release builds stamp internal/version.version, which `helm version` prints.
exec bash "$here/../../scripts/go-tools.sh" helm "$here/tools" "Helm" helm.sh/helm/v4/internal/version.version
