import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { AnyKind } from '../core/contract/kind';
import { HostAccess, imageRepository } from '../core/contract/rendered-shapes';
import { OperatorNames } from '../core/install/identity';
import { STORAGE_MIGRATION_GROUP, STORAGE_MIGRATION_RESOURCE } from '../core/install/storage-migration';

export interface ControllerPolicyProps {
  /** Whose controller it fences: the policies are named after the operator. */
  readonly names: OperatorNames;
  /** The kinds the controller serves: their declared shapes (`renders`) are all it may write. */
  readonly kinds: readonly AnyKind[];
  /** The controller's ServiceAccount, whose requests alone the policy judges. */
  readonly serviceAccount: { readonly namespace: string; readonly name: string };
  /** Image repositories beside the kinds' own (e.g. an image a kind's object names, from another registry). @default none */
  readonly extraImages?: readonly string[];
  /**
   * The resources (CRDs of its kinds with versions) the controller may ask the cluster's
   * StorageVersionMigration API to migrate; none: no policy for that API (the install grants none). @default none
   */
  readonly storageMigrations?: readonly { readonly group: string; readonly plural: string }[];
  readonly labels?: Record<string, string>;
}

/** The policy's variable holding the admitted image repositories (a CEL list), which the Helm chart fills from its values too. */
export const IMAGES_VARIABLE = 'images';

/**
 * What the policies judge, one policy each, so that the API server type-checks every expression
 * against the resources it is written for: workloads by where they keep their Pod spec.
 */
const POD_SHAPES = [
  { shape: 'pods', rules: [{ group: '', resources: ['pods'] }], podSpec: 'object.spec' },
  {
    shape: 'workloads',
    rules: [
      { group: 'apps', resources: ['deployments', 'replicasets', 'statefulsets', 'daemonsets'] },
      { group: 'batch', resources: ['jobs'] },
    ],
    podSpec: 'object.spec.template.spec',
  },
  { shape: 'cronjobs', rules: [{ group: 'batch', resources: ['cronjobs'] }], podSpec: 'object.spec.jobTemplate.spec.template.spec' },
] as const;

const SA_TOKEN = 'kubernetes.io/service-account-token';
const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const list = (items: readonly string[]) => `[${items.map(quote).join(', ')}]`;
const unset = (field: string) => `!has(${field})`;
/** A CEL list of images or repositories in Docker Hub's short form: `docker.io/library/busybox` is `busybox`. */
const shortNames = (cel: string) => `${cel}.map(i, i.startsWith('docker.io/') ? i.substring(10) : i).map(i, i.startsWith('library/') ? i.substring(8) : i)`;

/** CEL: whether the Pod template's volume `v` is a hostPath one of the declared exceptions. */
function hostPathException(access: readonly HostAccess[]): string {
  const one = (a: HostAccess) => `(request.namespace == ${quote(a.namespace)} && request.resource.resource == ${quote(a.resource)} && v.hostPath.path in ${list(a.hostPaths)})`;
  return access.length ? access.map(one).join(' || ') : 'false';
}

/**
 * The fence around the controller's own power: ValidatingAdmissionPolicies (no webhook: the API
 * server evaluates their CEL) and their bindings, one per shape of object (POD_SHAPES, Secrets,
 * ServiceAccounts), matched on the controller's ServiceAccount alone,
 * that admit from it only what the kinds declare they render (`renders`, see RenderedShapes). Its
 * RBAC must be wide (workloads and Secrets in every namespace, since users create objects
 * anywhere); this narrows what it may write there, so that its token is no stepping stone: no
 * service-account-token Secret (the token of any ServiceAccount, kube-system's too), no Pod
 * template that is privileged, adds capabilities, shares the node's network, PIDs or IPC, binds
 * a host port, mounts a host path (but a kind's declared exception), runs as another
 * ServiceAccount or runs an image no kind declares.
 */
export class ControllerPolicy extends Construct {
  /** The image repositories the kinds declare, without the install's extra ones. */
  readonly kindImages: readonly string[];

  constructor(scope: Construct, id: string, props: ControllerPolicyProps) {
    super(scope, id);
    const shapes = props.kinds.map((kind) => kind.renders ?? {});
    const repositories = (images: readonly string[]) => [...new Set(images.map(imageRepository))].sort();
    this.kindImages = repositories(shapes.flatMap((s) => s.images ?? []));
    const images = repositories([...this.kindImages, ...(props.extraImages ?? [])]);
    const serviceAccounts = [...new Set(shapes.flatMap((s) => s.serviceAccounts ?? []))].sort();
    const hostAccess = shapes.flatMap((s) => s.hostAccess ?? []);
    const { namespace, name } = props.serviceAccount;
    const who = `${props.names.identity.name}\u2019s controller`;
    const what = `request.resource.resource + ' ' + (request.namespace == '' ? '' : request.namespace + '/') + object.metadata.name`;
    const eachContainer = (rule: string) => `variables.containers.all(c, ${rule})`;
    const noSecurityField = (field: string, allowed: string) => `!has(c.securityContext) || !has(c.securityContext.${field}) || ${allowed}`;

    const docs = ' (docs/security.md, \u201cThe controller\u2019s own power\u201d)';
    // The message names the object; `detail`, CEL, ends the reason (e.g. the images admitted, which the Helm chart's values extend).
    const validation = (expression: string, message: string, detail?: { cel: string; text: string }) => ({
      expression,
      message: `${who} may not write this: ${message}${detail ? detail.text : ''}${docs}`,
      messageExpression: `${quote(`${who} may not write `)} + ${what} + ${quote(`: ${message}`)}${detail ? ` + ${detail.cel}` : ''} + ${quote(docs)}`,
      reason: 'Forbidden',
    });
    const policy = (shape: string, rules: readonly { group: string; resources: readonly string[] }[], variables: { name: string; expression: string }[], validations: ReturnType<typeof validation>[]) => {
      const policyName = `${props.names.controllerPolicy}-${shape}`;
      new ApiObject(this, shape, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: policyName, labels: props.labels },
        spec: {
          // A policy that cannot be evaluated refuses: the controller never writes unjudged.
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: rules.map((r) => ({ apiGroups: [r.group], apiVersions: ['*'], resources: [...r.resources], operations: ['CREATE', 'UPDATE'] })) },
          matchConditions: [{ name: 'the-controller', expression: `request.userInfo.username == ${quote(`system:serviceaccount:${namespace}:${name}`)}` }],
          ...(variables.length ? { variables } : {}),
          validations,
        },
      });
      new ApiObject(this, `${shape}-binding`, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: policyName, labels: props.labels },
        spec: { policyName, validationActions: ['Deny'] },
      });
    };

    policy('secrets', [{ group: '', resources: ['secrets'] }], [], [
      validation(`!has(object.type) || object.type != ${quote(SA_TOKEN)}`, `no kind renders a Secret of type ${SA_TOKEN}, which would hand out a ServiceAccount\u2019s token`),
    ]);
    policy('serviceaccounts', [{ group: '', resources: ['serviceaccounts'] }], [], [
      validation(
        `object.metadata.name in ${list(serviceAccounts)}`,
        serviceAccounts.length ? `the kinds render no ServiceAccount but ${serviceAccounts.join(', ')}` : 'no kind renders a ServiceAccount',
      ),
    ]);
    const migrations = (props.storageMigrations ?? []).map((m) => `${m.group}/${m.plural}`).sort();
    if (migrations.length) {
      // Its RBAC may create any StorageVersionMigration (create cannot be limited by name): only of its own resources here.
      policy('storage-migrations', [{ group: STORAGE_MIGRATION_GROUP, resources: [STORAGE_MIGRATION_RESOURCE] }], [], [
        validation(
          `object.spec.resource.group + '/' + object.spec.resource.resource in ${list(migrations)}`,
          `a StorageVersionMigration may migrate its kinds\u2019 resources only: ${migrations.join(', ')}`,
        ),
      ]);
    }
    for (const { shape, rules, podSpec } of POD_SHAPES) {
      const spec = `variables.podSpec`;
      policy(
        shape,
        rules,
        [
          { name: 'podSpec', expression: podSpec },
          { name: 'containers', expression: ['containers', 'initContainers', 'ephemeralContainers'].map((field) => `(has(${spec}.${field}) ? ${spec}.${field} : [])`).join(' + ') },
          // JSON, as the chart writes it from its values (a JSON list of strings is a CEL list).
          { name: IMAGES_VARIABLE, expression: JSON.stringify(images) },
          { name: 'repositories', expression: shortNames(`variables.${IMAGES_VARIABLE}`) },
          { name: 'containerImages', expression: shortNames(`variables.containers.map(c, has(c.image) ? c.image : '')`) },
          { name: 'serviceAccounts', expression: list(['default', ...serviceAccounts]) },
        ],
        [
          validation(
            ['serviceAccountName', 'serviceAccount'].map((f) => `(${unset(`${spec}.${f}`)} || ${spec}.${f} in variables.serviceAccounts)`).join(' && '),
            `a Pod template may run as ${['default', ...serviceAccounts].join(', ')} only (spec.serviceAccountName)`,
          ),
          validation(
            `variables.containerImages.all(image, variables.repositories.exists(r, image == r || image.startsWith(r + ':') || image.startsWith(r + '@')))`,
            'a container\u2019s image must be from one of these repositories (any tag or digest): ',
            { cel: `(size(variables.${IMAGES_VARIABLE}) == 0 ? 'none' : variables.${IMAGES_VARIABLE}.join(', '))`, text: images.join(', ') || 'none' },
          ),
          validation(eachContainer(noSecurityField('privileged', '!c.securityContext.privileged')), 'no container may be privileged (securityContext.privileged)'),
          validation(
            eachContainer(noSecurityField('capabilities', '!has(c.securityContext.capabilities.add) || size(c.securityContext.capabilities.add) == 0')),
            'no container may add capabilities (securityContext.capabilities.add)',
          ),
          validation(
            ['hostNetwork', 'hostPID', 'hostIPC'].map((f) => `(${unset(`${spec}.${f}`)} || !${spec}.${f})`).join(' && '),
            'no Pod template may share the node\u2019s network, process IDs or IPC (hostNetwork, hostPID, hostIPC)',
          ),
          validation(eachContainer('!has(c.ports) || c.ports.all(p, !has(p.hostPort) || p.hostPort == 0)'), 'no container may bind a port of the node (ports[].hostPort)'),
          validation(
            `${unset(`${spec}.volumes`)} || ${spec}.volumes.all(v, !has(v.hostPath) || ${hostPathException(hostAccess)})`,
            hostAccess.length
              ? `no Pod template may mount a path of the node (volumes[].hostPath) but ${hostAccess.map((a) => `${a.resource} in ${a.namespace}: ${a.hostPaths.join(', ')} (${a.reason})`).join('; ')}`
              : 'no Pod template may mount a path of the node (volumes[].hostPath)',
          ),
        ],
      );
    }
  }
}
