/**
 * The public face of the test kit, apart from the runtime entries because it loads Jest's
 * harness and the tests' control plane client: a test kind served by the real engine in the
 * test's own process (a kind of your own served the same way), and a namespace of the cluster
 * under test (the control plane Jest's global setup starts, `<engine>/testing/global-setup`, or
 * the cluster TEST_KUBECONFIG names). A kind's validation table types are in ./kind.
 * See docs/building-an-operator.md#the-public-face.
 */
export {
  childrenOf,
  defineTestKind,
  defineVersionedTestKind,
  installTestCrd,
  metricValue,
  serveTestKind,
  serveTestKindForSuite,
} from '../testing/test-kind';
export type { ServedTestKind, TestEngineSettings, TestKindSuite, TestSpec } from '../testing/test-kind';
export { createTestNamespace, deleteNamespace, eventually, suiteNamespace, testKubeConfig } from '../testing/cluster';
export { TestClock } from '../testing/test-clock';
export { applyCrd, FIELD_MANAGER, testObjects } from '../testing/objects';
export { TEST_OPERATOR } from '../testing/test-operator';
export { startLocalCluster, stopLocalCluster } from '../testing/local-cluster';
