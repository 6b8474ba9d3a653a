import { KubeConnection, KubeRest, withHeaders } from '../engine/client';

/**
 * Gives the REST client to act with: the UI's own identity, a user it impersonates
 * (`Impersonate-User` on every request, so the API server authorizes the request as that user;
 * the UI's ServiceAccount needs `impersonate` on users for that), or a user's own bearer token
 * (the connection then carries no credentials of its own). All share the UI's TLS pool.
 */
export class Identities {
  private readonly own: KubeRest;

  constructor(private readonly connection: KubeConnection) {
    this.own = new KubeRest(connection);
  }

  restFor(user: string | undefined): KubeRest {
    return user === undefined ? this.own : new KubeRest(withHeaders(this.connection, { 'Impersonate-User': user }));
  }

  /** Requests with the user's token: the API server authenticates and authorizes the user, not the UI. */
  restWithToken(token: string): KubeRest {
    return new KubeRest(withHeaders(this.connection, { authorization: `Bearer ${token}` }));
  }
}
