import { KindVersion, PrinterColumn } from '../../engine/kind';
import { DatabaseSpec, databaseSpecV1, DatabaseSpecV1 } from './api';

/** v1, the original SampleDB's: the same fields, the storage size spelled `storage-size`. A rename loses nothing. */
export function databaseV1(hubColumns: readonly PrinterColumn[], objectRules: KindVersion['objectRules']): KindVersion {
  return {
    name: 'v1',
    spec: databaseSpecV1,
    objectRules,
    printerColumns: hubColumns.map((column) => (column.jsonPath === '.spec.storageSize' ? { ...column, jsonPath: '.spec.storage-size' } : column)),
    // A partial object (server-side apply prunes to what a manager owns) may have no spec.
    toHub: ({ spec, ...object }) => {
      if (spec === undefined) return { object };
      const { 'storage-size': storageSize, ...rest } = spec as DatabaseSpecV1;
      return { object: { ...object, spec: { ...rest, storageSize } } };
    },
    fromHub: ({ spec, ...hub }) => {
      if (spec === undefined) return { object: hub };
      const { storageSize, ...rest } = spec as DatabaseSpec;
      return { object: { ...hub, spec: { ...rest, 'storage-size': storageSize } } };
    },
  };
}
