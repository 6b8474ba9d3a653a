import { OperatorIdentity } from '../core/install/identity';
import { projectVersion } from '../core/install/version';

/** An OCI manifest digest as a registry reports it (the only algorithm registries serve). */
export const IMAGE_DIGEST_PATTERN = '^sha256:[0-9a-f]{64}$';

/**
 * The image the bundle's Deployments run: `<the operator's imageRepository>:<its version>` (the
 * engine's version unless the identity names one), or with the
 * release's digest `...:<version>@sha256:<hex>`: the runtime then pulls exactly that image and
 * the tag only tells a reader which version it is.
 */
export function controllerImage(identity: OperatorIdentity, digest?: string): string {
  if (digest !== undefined && !new RegExp(IMAGE_DIGEST_PATTERN).test(digest)) {
    throw new Error(`the controller image digest must be sha256:<64 lowercase hex digits> (npm run image prints it), got '${digest}'`);
  }
  return `${identity.imageRepository}:${identity.version ?? projectVersion()}${digest ? `@${digest}` : ''}`;
}

/** repository, tag and digest ('' when absent) of an image reference such as `host:5000/a/b:1.0@sha256:...`. */
export function imageParts(reference: string): { repository: string; tag: string; digest: string } {
  const [name, digest = ''] = reference.split('@');
  const [repository, tag = ''] = name.split(/:(?=[^:/]+$)/);
  return { repository, tag, digest };
}
