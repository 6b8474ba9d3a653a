#!/usr/bin/env bash
# Builds the manifest linters pinned by the `tool` directives of test/lint/tools/go.mod (today
# kube-score) once into the tool cache; prints the bin directory as its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# kube-score's release builds stamp main.version, which `kube-score version` prints.
exec bash "$here/../../scripts/go-tools.sh" lint "$here/tools" "the manifest linters" main.version
