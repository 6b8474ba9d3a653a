import { projectVersion } from '../core/version';

/** Where the controller image is published; the tag is the project's version. */
export const CONTROLLER_IMAGE_REPOSITORY = 'cdk8s-operators/controller';

/** The image the bundle's Deployment runs: `cdk8s-operators/controller:<version>`. */
export function controllerImage(): string {
  return `${CONTROLLER_IMAGE_REPOSITORY}:${projectVersion()}`;
}
