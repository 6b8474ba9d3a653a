import { objectConditionMetric } from '../contract/monitoring';

/**
 * Who an operator built on the engine is. The app passes one (the product's is in
 * src/product.ts) and every name the engine gives to what one install owns derives from it
 * here, so that two operators installed with their defaults share no Lease, Secret, field
 * manager, metric, role or namespace (docs/building-an-operator.md#operator-identity).
 */
export interface OperatorIdentity {
  /** DNS-1123 label: the prefix of every derived name, e.g. `acme-operators`. */
  readonly name: string;
  /** The namespace the controller is installed in. */
  readonly namespace: string;
  /** The controller image's repository, e.g. `acme-operators/controller`. */
  readonly imageRepository: string;
  /** The image's tag: the operator's own version (its package.json's); the engine's version by default. */
  readonly version?: string;
}

/** The names derived from an identity: the one place they are spelt. */
export interface OperatorNames {
  readonly identity: OperatorIdentity;
  /** The leader Lease (and, sharded, the ring of the members' Leases) in the controller's namespace. */
  readonly leaderLease: string;
  /** The field manager of every apply, and (via createManager) of every create. */
  readonly fieldManager: string;
  /** The field manager of the storage migration's writes. */
  readonly storageMigrationManager: string;
  /** The field manager of the CRDs' injected caBundle. */
  readonly caInjector: string;
  /** The field manager of the webhook's own certificate Secret. */
  readonly certificatesManager: string;
  /** The field manager of `diff`'s dry-run applies. */
  readonly diffManager: string;
  /** Events' reportingController. */
  readonly reportingController: string;
  /** Prepended to the engine's metric names, e.g. `acme_operators_` in `acme_operators_reconciles_total`. */
  readonly metricPrefix: string;
  /** The per-object condition series every kind's objects export (objectConditionMetric), e.g. `acme_operators_object_condition`. */
  readonly objectConditionMetric: string;
  /** Prepended to the engine's alert names, the name in CamelCase: `AcmeOperators` in `AcmeOperatorsControllerDown`. */
  readonly alertPrefix: string;
  /** A ClusterRole's, Role's or binding's name: `<name>:<role>`. */
  readonly role: (role: string) => string;
  /** The ClusterRole whose holders may GET /metrics. */
  readonly metricsReaderRole: string;
  /** The NetworkPolicies that fence the controller's egress: `<name>-controller-<shape>`. */
  readonly controllerPolicy: string;
  /** The ValidatingWebhookConfiguration of the kinds with a `validate` hook: one webhook per served identity. */
  readonly validatingWebhook: string;
  /** The Secret of the conversion webhook's CA and serving certificate (made by the controller). */
  readonly webhookSecret: string;
  /** What cert-manager makes instead (synth's --webhook-certificates=cert-manager). */
  readonly certManager: {
    readonly certificate: string;
    readonly secretName: string;
    readonly selfSignedIssuer: string;
    readonly caCertificate: string;
    readonly caSecretName: string;
    readonly caIssuer: string;
    readonly metricsCertificate: string;
    readonly metricsSecretName: string;
  };
  /** The common name of the webhook's CA (the controller's own, or cert-manager's). */
  readonly caCommonName: string;
  /** `app.kubernetes.io/part-of` of the install's own objects. */
  readonly partOf: string;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** Room left for the longest suffix derived from the name (`-webhook-cert-manager-tls`) within a DNS-1123 label. */
const MAX_IDENTITY_NAME = 63 - '-webhook-cert-manager-tls'.length;

/** Checks an identity, naming the field that is wrong (as `fields` call them: a flag, say). */
export function checkOperatorIdentity(identity: OperatorIdentity, fields: Partial<Record<keyof OperatorIdentity, string>> = {}): OperatorIdentity {
  const where = (field: keyof OperatorIdentity) => fields[field] ?? `OperatorIdentity.${field}`;
  if (!DNS_LABEL.test(identity.name) || identity.name.length > MAX_IDENTITY_NAME) {
    throw new Error(`${where('name')}: expected lower-case letters, digits and '-' (at most ${MAX_IDENTITY_NAME} characters, alphanumeric at both ends), got ${JSON.stringify(identity.name)}`);
  }
  if (!DNS_LABEL.test(identity.namespace)) throw new Error(`${where('namespace')}: expected a namespace name (DNS-1123 label), got ${JSON.stringify(identity.namespace)}`);
  if (!/^[a-z0-9]+([._-][a-z0-9]+)*(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/.test(identity.imageRepository)) {
    throw new Error(`${where('imageRepository')}: expected an image repository without tag or digest (e.g. acme/controller), got ${JSON.stringify(identity.imageRepository)}`);
  }
  // An image tag, as the OCI distribution spec allows it.
  if (identity.version !== undefined && !/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(identity.version)) {
    throw new Error(`${where('version')}: expected an image tag (letters, digits, '_', '.', '-', at most 128 characters, e.g. 1.2.0), got ${JSON.stringify(identity.version)}`);
  }
  return identity;
}

/** Every name of an install, derived from its identity. */
export function operatorNames(identity: OperatorIdentity): OperatorNames {
  const { name } = checkOperatorIdentity(identity);
  return {
    identity,
    leaderLease: `${name}-leader`,
    fieldManager: name,
    storageMigrationManager: `${name}-storage-migration`,
    caInjector: `${name}-ca-injector`,
    certificatesManager: `${name}-webhook-certificates`,
    diffManager: `${name}-diff`,
    reportingController: `${name}.io/controller`,
    metricPrefix: `${name.replace(/-/g, '_')}_`,
    objectConditionMetric: objectConditionMetric(`${name.replace(/-/g, '_')}_`),
    alertPrefix: name.split('-').map((word) => `${word[0].toUpperCase()}${word.slice(1)}`).join(''),
    role: (role) => `${name}:${role}`,
    metricsReaderRole: `${name}:metrics-reader`,
    controllerPolicy: `${name}-controller`,
    validatingWebhook: `${name}-validation`,
    webhookSecret: `${name}-webhook-tls`,
    certManager: {
      certificate: `${name}-webhook`,
      secretName: `${name}-webhook-cert-manager-tls`,
      selfSignedIssuer: `${name}-selfsigned`,
      caCertificate: `${name}-webhook-ca`,
      caSecretName: `${name}-webhook-ca`,
      caIssuer: `${name}-webhook-ca`,
      metricsCertificate: `${name}-metrics`,
      metricsSecretName: `${name}-metrics-tls`,
    },
    caCommonName: `${name} conversion webhook CA`,
    partOf: name,
  };
}

/**
 * The engine's own vocabulary, the same in every operator built on it: the domain of the
 * labels and annotations a kind's constructs and the engine agree on (a kind published as a
 * package works in any operator), and the client's name in its User-Agent.
 */
export const ENGINE_NAME = 'cdk8s-operators';
export const ENGINE_DOMAIN = `${ENGINE_NAME}.io`;
/** The npm package the engine is published as (scripts/package/pack-engine.ts). */
export const ENGINE_PACKAGE = `${ENGINE_NAME}-engine`;
