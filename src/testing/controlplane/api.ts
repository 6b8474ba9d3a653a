import { request } from 'node:https';

/** Just enough of an HTTPS client to bring the control plane up, without loading the ESM Kubernetes client. */
export interface ApiEndpoint {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: string;
}

export function apiRequest(endpoint: ApiEndpoint, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      new URL(path, endpoint.server),
      {
        method,
        ca: endpoint.caPem,
        timeout: 5_000,
        headers: {
          authorization: `Bearer ${endpoint.token}`,
          ...(payload ? { 'content-type': contentType } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 5 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}
