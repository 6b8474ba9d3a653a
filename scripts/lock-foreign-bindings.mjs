// The npm registry this project is built from serves only the Linux builds of packages
// that ship one native binary per platform, so `npm install` leaves the other platforms'
// optional bindings out of package-lock.json, and `npm ci` then rejects the lock file as
// out of sync. This records each missing binding with its os/cpu, which is all `npm ci`
// needs to skip it on Linux. It runs as the postinstall script, and writes only when a binding is missing.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const platforms = [
  ['android-arm-eabi', 'android', 'arm'], ['android-arm64', 'android', 'arm64'],
  ['darwin-arm64', 'darwin', 'arm64'], ['darwin-x64', 'darwin', 'x64'], ['darwin-universal', 'darwin', 'x64'],
  ['freebsd-x64', 'freebsd', 'x64'], ['freebsd-arm64', 'freebsd', 'arm64'],
  ['linux-arm-gnueabihf', 'linux', 'arm'], ['linux-arm-musleabihf', 'linux', 'arm'],
  ['linux-arm64-gnu', 'linux', 'arm64'], ['linux-arm64-musl', 'linux', 'arm64'],
  ['linux-loong64-gnu', 'linux', 'loong64'], ['linux-loong64-musl', 'linux', 'loong64'],
  ['linux-ppc64-gnu', 'linux', 'ppc64'], ['linux-riscv64-gnu', 'linux', 'riscv64'], ['linux-riscv64-musl', 'linux', 'riscv64'],
  ['linux-s390x-gnu', 'linux', 's390x'], ['linux-x64-gnu', 'linux', 'x64'], ['linux-x64-musl', 'linux', 'x64'],
  ['openharmony-arm64', 'openharmony', 'arm64'], ['wasm32-wasi', null, 'wasm32'],
  ['win32-arm64-msvc', 'win32', 'arm64'], ['win32-ia32-msvc', 'win32', 'ia32'], ['win32-x64-msvc', 'win32', 'x64'],
];

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const flatKey = `node_modules/${name}`;
    if (lock.packages[`${path ? `${path}/` : ''}${flatKey}`] || lock.packages[flatKey]) continue;
    const platform = platforms.find(([suffix]) => name.endsWith(`-${suffix}`));
    if (!platform) throw new Error(`${name}@${version} (optional dependency of ${path}) is missing from the lock and its platform is unknown`);
    const [, os, cpu] = platform;
    lock.packages[flatKey] = { version, ...(os ? { os: [os] } : {}), cpu: [cpu], dev: entry.dev, optional: true };
    added++;
  }
}
if (added === 0) process.exit(0);
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`recorded ${added} optional platform binding(s) the registry does not serve`);
