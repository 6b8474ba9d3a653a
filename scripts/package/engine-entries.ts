/**
 * What the engine package holds (docs/your-own-repository.md): its public entries, one subpath
 * of `exports` each, compiled from src/ with everything they import and nothing else.
 */

/** The public face (src/engine/): subpath `./<name>` is src/engine/<name>.ts. */
export const PUBLIC_ENTRIES = ['kind', 'constructs', 'operator', 'client', 'synth', 'helm', 'testing'] as const;

/** Jest's global setup and teardown of the test kit: subpath `./testing/<name>` is src/testing/<name>.ts. */
export const TESTING_ENTRIES = ['global-setup', 'global-teardown'] as const;

/** Programs the package runs as processes rather than imports, compiled beside their callers. */
export const PROGRAMS = ['testing/controlplane/watchdog.ts'] as const;

/** The scaffold's command line, the package's `bin`. */
export const SCAFFOLD_BIN = 'scaffold/command';

/**
 * The product's modules (src/ relative, without extension): an engine file importing one fails
 * the pack, and the package holds none of them.
 */
export const PRODUCT_PATHS = [/^kinds\//, /^ui\//, /^instances\//, /^product\./, /^app\./, /^synth-options\./, /^cli\./];

/** The packages a user's app must share with the engine (one cdk8s tree of constructs): peers, not dependencies. */
export const PEERS = ['cdk8s', 'constructs', 'cdk8s-plus-27'];

/** The control plane's build script and its pinned Go modules, from the checkout's test/controlplane/ to the same path in the package. */
export const CONTROL_PLANE_ASSETS = ['build.sh', 'tools-1.37/go.mod', 'tools-1.37/go.sum', 'tools-1.36/go.mod', 'tools-1.36/go.sum', 'kwok-stages/pod-fail.yaml'];

/** The controller image's build (scripts/image/), to the same path in the package: an operator's `npm run image` runs it on its own repository. */
export const IMAGE_ASSETS = ['build.sh', 'packages.txt', 'rootfs/etc/group', 'rootfs/etc/nsswitch.conf', 'rootfs/etc/passwd'];
