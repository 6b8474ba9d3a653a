import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { CERT_MANAGER, serviceDnsNames, WEBHOOK_SERVICE } from '../core/webhook';
import { METRICS_CERT_MANAGER, METRICS_SERVICE } from '../core/metrics-endpoint';

/**
 * The conversion webhook's and the metrics server's certificates made by cert-manager instead
 * of the controller (synth's --webhook-certificates=cert-manager): the self-signed CA chain cert-manager's docs
 * recommend for webhooks. A self-signed Issuer signs a CA Certificate; an Issuer of that CA
 * signs the serving Certificate for the webhook Service's DNS names into the Secret the
 * controller serves. cainjector copies that Secret's ca.crt into the caBundle of every CRD
 * annotated `cert-manager.io/inject-ca-from` (see CustomResourceDefinitions).
 */
export class CertManagerCertificates extends Construct {
  constructor(scope: Construct, id: string, props: { readonly namespace: string; readonly labels: Record<string, string>; readonly webhook: boolean }) {
    super(scope, id);
    const { namespace, labels } = props;
    const object = (name: string, kind: 'Issuer' | 'Certificate', spec: Record<string, unknown>) =>
      new ApiObject(this, `${kind.toLowerCase()}-${name}`, { apiVersion: 'cert-manager.io/v1', kind, metadata: { name, namespace, labels }, spec });
    const issuerRef = (name: string) => ({ name, kind: 'Issuer', group: 'cert-manager.io' });
    // ECDSA P-256, as the controller's own certificates: fast to make, and what cert-manager's examples use.
    const privateKey = { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' };

    object(CERT_MANAGER.selfSignedIssuer, 'Issuer', { selfSigned: {} });
    object(CERT_MANAGER.caCertificate, 'Certificate', {
      isCA: true,
      commonName: 'cdk8s-operators conversion webhook CA',
      secretName: CERT_MANAGER.caSecretName,
      // A year, renewed a third before its end; the serving certificate renews far more often.
      duration: '8760h',
      privateKey,
      issuerRef: issuerRef(CERT_MANAGER.selfSignedIssuer),
    });
    object(CERT_MANAGER.caIssuer, 'Issuer', { ca: { secretName: CERT_MANAGER.caSecretName } });
    const serving = (name: string, secretName: string, service: string) =>
      object(name, 'Certificate', {
        secretName,
        secretTemplate: { labels },
        dnsNames: serviceDnsNames(service, namespace),
        duration: '2160h',
        privateKey,
        usages: ['digital signature', 'server auth'],
        issuerRef: issuerRef(CERT_MANAGER.caIssuer),
      });
    if (props.webhook) serving(CERT_MANAGER.certificate, CERT_MANAGER.secretName, WEBHOOK_SERVICE);
    // The same CA signs the metrics Service's certificate: the ServiceMonitor verifies the controller by its ca.crt.
    serving(METRICS_CERT_MANAGER.certificate, METRICS_CERT_MANAGER.secretName, METRICS_SERVICE);
  }
}

/** `<namespace>/<Certificate>`, the value of the CRDs' `cert-manager.io/inject-ca-from`. */
export function injectCaFrom(namespace: string): Record<string, string> {
  return { [CERT_MANAGER.injectAnnotation]: `${namespace}/${CERT_MANAGER.certificate}` };
}
