#!/usr/bin/env bash
# Installs the Debian packages a step needs, when any is missing (one list for CI and for
# `npm test` on a fresh machine). Groups: core (git, npm, sha256sum), image (buildah and the
# tools that unpack its images), tests (what the tests run for real). Root with apt-get
# installs them; otherwise it says what to install and fails. Quiet when nothing is missing.
#
# usage: system-packages.sh <group>...
set -euo pipefail

missing=()
need() { command -v "$1" >/dev/null || missing+=("$2"); }
for group in "$@"; do
  case "$group" in
    core) need git git; command -v npm >/dev/null || missing+=(nodejs npm); need sha256sum coreutils ;;
    # The controller image: buildah builds it, skopeo and umoci unpack it for the image test.
    image) need buildah buildah; need skopeo skopeo; need umoci umoci ;;
    tests)
      # The RegistryMirror tests: busybox runs the node script as its image would, openssl makes
      # the test CA, htpasswd the upstream's bcrypt password file, unshare/chroot the containers' roots.
      need busybox busybox; need openssl openssl; need htpasswd apache2-utils; need unshare util-linux
      # The Database's scripts run on a real PostgreSQL (test/support/postgres.ts).
      ls /usr/lib/postgresql/*/bin/pg_basebackup >/dev/null 2>&1 || missing+=(postgresql)
      # The guitar UI's browser test drives Debian's Chromium (playwright-core downloads no browser);
      # about 85 s with apt-get update (155 MB).
      [ -x /usr/bin/chromium ] || missing+=(chromium)
      # The alerting rules: promtool checks and unit-tests them, a real Prometheus scrapes the controller (test/monitoring/).
      need promtool prometheus ;;
    *) echo "system-packages.sh: unknown group $group (core, image, tests)" >&2; exit 2 ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "missing Debian packages: ${missing[*]}; install them (apt-get install -y ${missing[*]}) or run this as root on Debian" >&2
  exit 1
fi
echo "installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
