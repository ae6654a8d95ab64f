// A POST helper for a running browser host's API: the token, the Host header, JSON both ways.
import { request } from 'node:http';
import type { RunningServer } from '../../src/main/host/server';

export type HostPost = <T = Record<string, unknown>>(method: string, body: unknown) => Promise<{ status: number; json: T }>;

/** POSTs `body` as written (a test may send JSON that JSON.stringify cannot write) and parses the JSON answer. */
export function postText<T = Record<string, unknown>>(server: RunningServer, method: string, body: string): Promise<{ status: number; json: T }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: `/api/${method}`,
        method: 'POST',
        headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as T }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function hostPoster(server: RunningServer): HostPost {
  return (method, body) => postText(server, method, JSON.stringify(body));
}
