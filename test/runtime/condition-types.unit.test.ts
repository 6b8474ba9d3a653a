import { CustomResource } from '../../src/core/contract/kind';
import { kindConditions } from '../../src/runtime/status';
import { defineTestKind, TestSpec } from '../../src/testing/test-kind';

/** A kind declaring the kubebuilder tutorial's three conditions of its own. */
const declaring = defineTestKind('Declaring', { render: () => undefined, controller: { conditionTypes: ['Available', 'Progressing', 'Degraded'] } });
const undeclaring = defineTestKind('Undeclaring', { render: () => undefined, controller: {} });
const object = { apiVersion: 'declaring.test.cdk8s-operators.io/v1', kind: 'Declaring', metadata: { name: 'one', namespace: 'team-a', generation: 1 }, spec: { size: 1 } } as CustomResource<TestSpec>;
const clock = { now: () => new Date('2061-01-01T00:00:00Z') };
const condition = (type: string) => ({ type, status: 'True' as const, reason: 'Because', message: '' });

describe('the condition types a kind declares (controller.conditionTypes)', () => {
  it('are the ones its conditions may return: another is refused, naming the kind and the type', () => {
    expect(kindConditions(declaring, object, [condition('Available'), condition('Degraded')], clock).map((c) => c.type)).toEqual(['Available', 'Degraded']);
    expect(() => kindConditions(declaring, object, [condition('Available'), condition('Healthy')], clock)).toThrow(
      'Declaring: controller.conditions returned the condition Healthy, which controller.conditionTypes does not declare (Available, Progressing, Degraded): add it there',
    );
  });

  it('when none are declared, leave every type but the engine\u2019s to the kind, as before', () => {
    expect(kindConditions(undeclaring, object, [condition('Healthy')], clock).map((c) => c.type)).toEqual(['Healthy']);
    expect(() => kindConditions(undeclaring, object, [condition('Stalled')], clock)).toThrow('which the engine writes');
  });
});
