/**
 * The one shape of a Kubernetes object as JSON. Every other name for an object narrows this
 * one: `CustomResource` (typed spec and status), `KubeObject` (src/kube/objects.ts) and
 * `Manifest` (src/core/render.ts) are aliases kept for their importers.
 */

/** The object metadata the constructs and the controller read. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string | Date;
  /** Set by the API server when the object is created (RFC 3339). */
  creationTimestamp?: string;
  /** The objects this one belongs to; the one marked `controller` manages it. */
  ownerReferences?: OwnerReference[];
}

/** A reference from an object to one it belongs to (metav1.OwnerReference). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** An object as the API server sends it or a chart renders it: apiVersion, kind, metadata and whatever else it has. */
export interface KubeJson {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { resourceVersion?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** One custom resource as it comes from the API server or a YAML file: an object with its kind's spec and status. */
export interface CustomResource<Spec = unknown, Status = unknown> extends KubeJson {
  spec: Spec;
  status?: Status;
}
