import { DEFAULT_CRD_BASELINE, installOptions, optInSynthOptions, WEBHOOK_CERTIFICATES } from './engine/synth';
import { envName, helpOf, OptionSpec, OptionValues, parseCommandLine, specCommand, UserError } from './engine/operator';
import { KINDS } from './kinds';

/**
 * synth's options. scripts/synth.sh passes its command line to `node lib/src/app.js --check`,
 * which parses and checks it (and the resources) and prints the options as CDK8S_OPERATORS_*
 * variables; the script exports them for `cdk8s synth`, which runs src/app.ts again without
 * arguments (it cannot pass any), and the same parser reads them back.
 */
export const SYNTH_OPTIONS: readonly OptionSpec[] = [
  { name: 'output', type: 'string', default: 'dist', description: 'Where to write; a bare folder argument means the same.' },
  { name: 'instances', type: 'string', description: 'The team\u2019s resources to declare; src/instances by default.' },
  { name: 'examples', type: 'boolean', default: 'false', description: 'Add the built-in example of each kind (3-examples.k8s.yaml).' },
  { name: 'helm-instances', type: 'boolean', default: 'false', description: 'Put the team\u2019s resources (and examples) into the Helm chart\u2019s templates too.' },
  // What the kinds do only where the install turns it on, e.g. --secret-copy: each kind's opt-ins (KindDefinition.optIns).
  ...optInSynthOptions(KINDS),
  {
    name: 'sharding',
    type: 'boolean',
    default: 'false',
    description: 'Run every controller replica active, each serving a share of the objects: --sharding on its command line, RBAC for its membership Leases and for labelling objects (docs/operating.md#sharding).',
  },
  {
    name: 'without-extra-groups',
    type: 'list',
    description:
      'Leave out extra API groups of kinds, by CRD name (e.g. copyrators.flant.com): no CRD, no RBAC, not served. Every group is served by default, so that the originals\u2019 manifests apply unchanged.',
  },
  {
    name: 'webhook-certificates',
    type: 'string',
    default: 'self',
    choices: WEBHOOK_CERTIFICATES,
    description:
      'Who makes the conversion webhook\u2019s certificate: self (the controller\u2019s own CA, injected into the CRDs) or cert-manager (the bundle carries cert-manager Issuers and a Certificate, and the CRDs ask its cainjector for caBundle; cert-manager must be installed).',
  },
  // The kinds' options an administrator sets at install, e.g. --mirror-hosts: the same flags the controller takes.
  ...installOptions(KINDS),
  {
    name: 'extra-images',
    type: 'list',
    description:
      'Image repositories (any tag or digest of each) the controller may run beside those its kinds declare, e.g. registry.example.com/library/postgres for Databases whose spec.image names it: its admission policy refuses every other (docs/security.md).',
  },
  {
    name: 'watch-namespaces',
    type: 'list',
    description:
      'The namespaced install: the controller serves objects in these namespaces only (--namespace), with Roles there instead of ClusterRoles, and only the kinds that can be served so (docs/install.md#namespaced-install). The namespaces must exist before the install is applied.',
  },
  {
    name: 'controller-digest',
    type: 'string',
    description:
      'The digest of the released controller image (sha256:<hex>, as npm run image prints it): the Deployments and the Helm chart run the image by digest, so that a tag moved in the registry changes nothing (docs/install.md#pin-the-controller-image).',
  },
  {
    name: 'crd-baseline',
    type: 'string',
    default: DEFAULT_CRD_BASELINE,
    description:
      'The CRDs users already run, which the new ones must not break (docs/evolving-a-kind.md): git://<ref> (the committed dist/0-crds.k8s.yaml at that git ref), file://<path> or none. A break stops the synth before anything is written.',
  },
  {
    name: 'runbook-url',
    type: 'string',
    description: 'Where the alerts\u2019 runbook links point: the URL of docs/monitoring.md where your copy of this repository is browsed; the repository path by default.',
  },
];

/** The prefix of synth's variables: CDK8S_OPERATORS_INSTANCES, ... */
const SYNTH_ENV_PREFIX = 'CDK8S_OPERATORS_';

function synthCommand() {
  return specCommand('npm run synth --', 'Synthesizes the GitOps bundle (plain manifests, kustomization.yaml, previews) and the same bundle as a Helm chart. A resource that is not valid stops the synth before anything is written.', SYNTH_OPTIONS, SYNTH_ENV_PREFIX)
    .usage('[options] [output-folder]   (or: bash scripts/synth.sh [options] [output-folder])')
    .argument('[output-folder]', 'the same as --output');
}

/** synth's option values from its command line and CDK8S_OPERATORS_* variables; undefined for --help (printed to `out`). */
export function synthOptions(argv: readonly string[], env: Record<string, string | undefined>, out: (text: string) => void = () => undefined): OptionValues | undefined {
  const command = synthCommand();
  const parsed = parseCommandLine(command, SYNTH_OPTIONS, argv, env);
  if (!parsed) {
    out(helpOf(command));
    return undefined;
  }
  const [folder] = parsed.operands;
  return folder === undefined ? parsed.values : { ...parsed.values, output: folder };
}

/** `NAME=value` lines for scripts/synth.sh to export; a value on several lines could not be read back line by line. */
export function environmentOf(options: OptionValues): string {
  return SYNTH_OPTIONS.flatMap((spec) => {
    const value = options[spec.name];
    if (value === undefined) return [];
    if (String(value).includes('\n')) throw new UserError(`--${spec.name}: expected one line, got a value with a line break`);
    return [`${envName(spec.name, SYNTH_ENV_PREFIX)}=${String(value)}`];
  }).join('\n');
}
