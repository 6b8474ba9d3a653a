/**
 * The public face for a kind's constructs and example, and a companion's: the restricted
 * security contexts, NetworkPolicy parts, placement, declaring a resource as a team declares it,
 * and a container of the operator's own image with the rules of its Role. Loads
 * cdk8s-plus-27, so only a kind's constructs and example import it (loaded at first use, see
 * constructsOnFirstUse in ./kind). See docs/building-an-operator.md#the-public-face.
 */
export { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../core/kit/security';
export { dnsEgress, tcpPort } from '../core/kit/network';
export { spreadOverNodes } from '../core/kit/placement';
export { declareResource } from '../core/kit/declare';
export type { Declared } from '../core/kit/declare';

// A companion's parts (e.g. a web UI's install): a container of the operator's image, the rules of its Role.
export { IMAGE_UID, imageContainer } from '../bundle/image-container';
export type { ImageContainerProps } from '../bundle/image-container';
export type { PolicyRule } from '../bundle/rbac';
