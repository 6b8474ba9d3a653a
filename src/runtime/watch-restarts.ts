import { ResolvedCollection } from '../kube/discovery';
import { apiGroupOf, resourceLabel } from './collection-names';
import { WatchRestart } from './informer';

/** What counts watch restarts: told of each collection as it is first watched, then of each restart. */
export interface WatchRestarts {
  watching(resource: string): void;
  restarted(resource: string, why: WatchRestart): void;
}

/** The informer option that reports a collection's restarts, the collection counted as watched from here. */
export function restartsOption(report: WatchRestarts | undefined, collection: ResolvedCollection): { onRestart?: (why: WatchRestart) => void } {
  if (!report) return {};
  const resource = resourceLabel(collection.resource, apiGroupOf(collection));
  report.watching(resource);
  return { onRestart: (why) => report.restarted(resource, why) };
}
