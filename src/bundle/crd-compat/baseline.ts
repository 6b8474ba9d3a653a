import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { UserError } from '../../core/errors';
import { CrdDocument } from './crd-compare';

/** Where the CRDs users run come from: the committed dist/ at a git ref, a file, or nowhere (crdify's source style). */
export const DEFAULT_CRD_BASELINE = 'git://HEAD';

/** The file of the CRDs a synth writes, inside the repository. */
export const CRDS_FILE = 'dist/0-crds.k8s.yaml';

/** The baseline's CRDs by name, or why there is none to compare with. */
export type Baseline = { readonly crds: ReadonlyMap<string, CrdDocument>; readonly from: string } | { readonly skipped: string };

/** The CRDs of a multi-document YAML text, by name. */
export function crdsOfYaml(text: string, source: string): Map<string, CrdDocument> {
  const crds = new Map<string, CrdDocument>();
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new UserError(`${source}: not YAML: ${doc.errors[0].message}`);
    const object = doc.toJS() as { kind?: string; metadata?: { name?: string } } | null;
    if (object?.kind === 'CustomResourceDefinition' && object.metadata?.name) crds.set(object.metadata.name, object as unknown as CrdDocument);
  }
  return crds;
}

/**
 * The baseline `source` names: `git://<ref>` (the committed dist/0-crds.k8s.yaml at that ref of
 * the repository at `root`), `file://<path>` or `none`. A git ref or repository that is not there
 * skips the check (a fresh clone without history, a tarball); a file that is not there is an error.
 */
export function loadBaseline(source: string, root: string): Baseline {
  if (source === 'none') return { skipped: '--crd-baseline=none' };
  if (source.startsWith('file://')) {
    const path = resolve(source.slice('file://'.length));
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new UserError(`--crd-baseline: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const crds = crdsOfYaml(text, `--crd-baseline: ${path}`);
    // Most likely the wrong file: comparing with nothing would pass every break.
    if (!crds.size) throw new UserError(`--crd-baseline: ${path} holds no CustomResourceDefinition`);
    return { crds, from: source };
  }
  if (source.startsWith('git://')) {
    const ref = source.slice('git://'.length);
    // Handed to git as one argument, never through a shell; a leading dash would read as an option.
    if (!ref || ref.startsWith('-')) throw new UserError(`--crd-baseline: expected git://<ref>, e.g. ${DEFAULT_CRD_BASELINE}, got "${source}"`);
    try {
      const text = execFileSync('git', ['show', `${ref}:${CRDS_FILE}`], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
      return { crds: crdsOfYaml(text, `--crd-baseline: ${ref}:${CRDS_FILE}`), from: source };
    } catch (err) {
      if (err instanceof UserError) throw err;
      const said = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n')[0];
      return { skipped: `no ${CRDS_FILE} at git ref ${ref} in ${root} (${said})` };
    }
  }
  throw new UserError(`--crd-baseline: expected git://<ref>, file://<path> or none, got "${source}"`);
}
