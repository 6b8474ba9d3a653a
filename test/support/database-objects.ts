import { KubeObject, ObjectClient } from '../../src/kube/objects';
import { gone } from './resources';

/** A Database or one of its children as read back, loosely typed for the tests' checks. */
export type Json = KubeObject & { spec?: any; status?: any; data?: Record<string, string> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * References to Databases (v1) and their children in namespace `ns`, and reads of them, for
 * the end-to-end tests; `objects` is a function since their cluster starts in beforeAll.
 */
export function databaseObjects(ns: string, objects: () => ObjectClient) {
  const child = (kind: string, name: string, apiVersion = 'v1'): KubeObject => ({ apiVersion, kind, metadata: { name, namespace: ns } });
  return {
    database: (name: string, spec: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'stable.imaginedata.com/v1', kind: 'Database', metadata: { name, namespace: ns }, spec }),
    child,
    statefulSet: (name: string) => child('StatefulSet', name, 'apps/v1'),
    job: (name: string) => child('Job', name, 'batch/v1'),
    get: (o: KubeObject) => objects().get<Json>(o),
    exists: async (o: KubeObject) => !(await gone(objects(), o)),
  };
}
