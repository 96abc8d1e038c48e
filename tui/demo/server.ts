// The page the demo's web tool opens: served on 127.0.0.1 by the demo itself.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Interlock demo page</title></head>
<body>
  <h1>Interlock demo page</h1>
  <p>The agent paused here so you can inspect this page (DevTools). Press Enter in the terminal to continue.</p>
</body></html>
`;

/** startPageServer serves the demo page on a free port of 127.0.0.1. */
export async function startPageServer(): Promise<PageServer> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
