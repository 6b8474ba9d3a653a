import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { INJECT_CA_ANNOTATION, serviceDnsNames, WEBHOOK_SERVICE } from '../core/install/webhook';
import { METRICS_SERVICE } from '../core/install/metrics-endpoint';
import { OperatorNames } from '../core/install/identity';

/**
 * The conversion webhook's and the metrics server's certificates made by cert-manager instead
 * of the controller (synth's --webhook-certificates=cert-manager): the self-signed CA chain cert-manager's docs
 * recommend for webhooks. A self-signed Issuer signs a CA Certificate; an Issuer of that CA
 * signs the serving Certificate for the webhook Service's DNS names into the Secret the
 * controller serves. cainjector copies that Secret's ca.crt into the caBundle of every CRD
 * annotated `cert-manager.io/inject-ca-from` (see CustomResourceDefinitions).
 */
export class CertManagerCertificates extends Construct {
  constructor(scope: Construct, id: string, props: { readonly names: OperatorNames; readonly namespace: string; readonly labels: Record<string, string>; readonly webhook: boolean }) {
    super(scope, id);
    const { namespace, labels } = props;
    const names = props.names.certManager;
    const object = (name: string, kind: 'Issuer' | 'Certificate', spec: Record<string, unknown>) =>
      new ApiObject(this, `${kind.toLowerCase()}-${name}`, { apiVersion: 'cert-manager.io/v1', kind, metadata: { name, namespace, labels }, spec });
    const issuerRef = (name: string) => ({ name, kind: 'Issuer', group: 'cert-manager.io' });
    // ECDSA P-256, as the controller's own certificates: fast to make, and what cert-manager's examples use.
    const privateKey = { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' };

    object(names.selfSignedIssuer, 'Issuer', { selfSigned: {} });
    object(names.caCertificate, 'Certificate', {
      isCA: true,
      commonName: props.names.caCommonName,
      secretName: names.caSecretName,
      // A year, renewed a third before its end; the serving certificate renews far more often.
      duration: '8760h',
      privateKey,
      issuerRef: issuerRef(names.selfSignedIssuer),
    });
    object(names.caIssuer, 'Issuer', { ca: { secretName: names.caSecretName } });
    const serving = (name: string, secretName: string, service: string) =>
      object(name, 'Certificate', {
        secretName,
        secretTemplate: { labels },
        dnsNames: serviceDnsNames(service, namespace),
        duration: '2160h',
        privateKey,
        usages: ['digital signature', 'server auth'],
        issuerRef: issuerRef(names.caIssuer),
      });
    if (props.webhook) serving(names.certificate, names.secretName, WEBHOOK_SERVICE);
    // The same CA signs the metrics Service's certificate: the ServiceMonitor verifies the controller by its ca.crt.
    serving(names.metricsCertificate, names.metricsSecretName, METRICS_SERVICE);
  }
}

/** `<namespace>/<Certificate>`, the value of the CRDs' `cert-manager.io/inject-ca-from`. */
export function injectCaFrom(names: OperatorNames, namespace: string): Record<string, string> {
  return { [INJECT_CA_ANNOTATION]: `${namespace}/${names.certManager.certificate}` };
}
