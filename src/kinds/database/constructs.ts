import { Chart } from 'cdk8s';
import { KindConstructs } from '../../engine/kind';
import { DatabaseSpec } from './api';
import { DatabaseChildren } from './database';
import { databaseExample } from './example';
import { DatabaseObservation } from './observation';

/** The Database's constructs, loaded at their first use (see KindConstructs). */
export const databaseConstructs: KindConstructs<DatabaseSpec, DatabaseObservation> = {
  example: databaseExample,
  render: (scope, resource, observation) => {
    const deleting = observation?.deleting ?? resource.metadata.deletionTimestamp !== undefined;
    new DatabaseChildren(scope, 'database', {
      ownerName: resource.metadata.name,
      namespace: resource.metadata.namespace,
      spec: resource.spec,
      observation: { ...observation, deleting },
      // The children's chart carries the owner's labels (childLabels); pod templates and selectors use them.
      ownerLabels: Chart.of(scope).labels,
    });
  },
};
