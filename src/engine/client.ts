/**
 * The public face for talking to the API server, as a companion of the operator (e.g. a web UI)
 * or a command does: connections and kubeconfigs, the REST client and its errors, API paths,
 * a watched cache (Informer) and the engine's logger. See docs/building-an-operator.md#the-public-face.
 */
export { loadKubeConnection, SERVICE_ACCOUNT_DIR } from '../kube/kubeconfig';
export type { LoadOptions } from '../kube/kubeconfig';
export { withHeaders } from '../kube/connection';
export type { Headers, KubeConnection } from '../kube/connection';
export { isNotFound, KubeError, KubeRest } from '../kube/rest';
export type { RequestOptions } from '../kube/rest';
export { resourcePath } from '../kube/paths';
export type { ApiPathScope, ApiResourceName } from '../kube/paths';
export { Informer } from '../runtime/informer';
export type { ChangeHandler, ChangeType, InformerOptions } from '../runtime/informer';
export { createLogger, LOG_LEVEL_OPTION, LOG_LEVELS } from '../runtime/log';
export type { LogFields, Logger, LoggerOptions, LogLevel } from '../runtime/log';
