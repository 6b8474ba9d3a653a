import * as k8s from '@kubernetes/client-node';
import { KubeRest } from '../kube/rest';

/** One connection pool for every user the UI acts as: the TLS settings are the UI's own. */
interface SharedPool {
  dispatcher?: unknown;
}

/**
 * The UI's own kubeconfig with `Impersonate-User` added to every request, so the API
 * server authorizes the request as that user (the UI's ServiceAccount needs `impersonate`
 * on users for that).
 */
class ImpersonatingKubeConfig extends k8s.KubeConfig {
  constructor(
    private readonly base: k8s.KubeConfig,
    private readonly user: string,
    private readonly pool: SharedPool,
  ) {
    super();
  }

  override getCurrentCluster(): k8s.Cluster | null {
    return this.base.getCurrentCluster();
  }

  override async applySecurityAuthentication(context: k8s.RequestContext): Promise<void> {
    await this.base.applySecurityAuthentication(context);
    context.setHeaderParam('Impersonate-User', this.user);
    this.pool.dispatcher ??= context.getDispatcher();
    context.setDispatcher(this.pool.dispatcher as NonNullable<ReturnType<k8s.RequestContext['getDispatcher']>>);
  }
}

/** Gives the REST client to act with: the UI's own identity, or a user it impersonates. */
export class Identities {
  private readonly own: KubeRest;
  private readonly pool: SharedPool = {};

  constructor(private readonly kc: k8s.KubeConfig) {
    this.own = new KubeRest(kc);
  }

  restFor(user: string | undefined): KubeRest {
    return user === undefined ? this.own : new KubeRest(new ImpersonatingKubeConfig(this.kc, user, this.pool));
  }
}
