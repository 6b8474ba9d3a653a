#!/usr/bin/env bash
# Builds the real programs the RegistryMirror tests run once into the tool cache; prints the
# bin directory as its last line:
#   registry          distribution's registry (the `tool` directive of tools/go.mod), the
#                     program of the registry image the cache's StatefulSet runs;
#   containerd-hosts  containerd's own hosts.toml resolution, as its CRI plugin calls it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# distribution's release builds stamp this variable, which `registry --version` prints.
exec bash "$here/../../scripts/go-tools.sh" mirror "$here/tools" "the mirror test tools" github.com/distribution/distribution/v3/version.version
