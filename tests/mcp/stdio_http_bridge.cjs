// The conformance suite tests servers over Streamable HTTP; `gpuwhy mcp` speaks stdio. This
// bridge, built from the official TypeScript SDK's transports, forwards every JSON-RPC message
// unchanged between an HTTP session and its own `gpuwhy mcp` process, so the suite's checks
// read gpuwhy's own answers. One process per session (each scenario connects anew).
'use strict';
const http = require('http');
const { randomUUID } = require('crypto');

function startBridge(req, gpuwhy, args = ['mcp']) {
  const { StreamableHTTPServerTransport } = req('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');
  const sessions = new Map();  // session id -> { httpSide, stdioSide }

  async function openSession() {
    const stdioSide = new StdioClientTransport({ command: gpuwhy, args, stderr: 'inherit' });
    const httpSide = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, { httpSide, stdioSide }),
    });
    httpSide.onmessage = (message) => stdioSide.send(message).catch(() => {});
    stdioSide.onmessage = (message) => httpSide.send(message).catch(() => {});
    httpSide.onclose = () => {
      if (httpSide.sessionId) sessions.delete(httpSide.sessionId);
      stdioSide.close().catch(() => {});
    };
    await stdioSide.start();
    await httpSide.start();
    return httpSide;
  }

  const server = http.createServer(async (request, response) => {
    try {
      let body;
      if (request.method === 'POST') {
        const chunks = [];
        for await (const chunk of request) chunks.push(chunk);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      }
      const id = request.headers['mcp-session-id'];
      let transport = id && sessions.get(id) ? sessions.get(id).httpSide : undefined;
      if (!transport && !id && body && body.method === 'initialize') transport = await openSession();
      if (!transport) {
        response.writeHead(400, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ jsonrpc: '2.0', id: null,
                                      error: { code: -32000, message: 'no such session' } }));
        return;
      }
      await transport.handleRequest(request, response, body);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    }
  });

  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/mcp`;
      resolve({
        url,
        close: async () => {
          for (const { httpSide } of sessions.values()) await httpSide.close().catch(() => {});
          await new Promise((done) => server.close(done));
        },
      });
    });
  });
}

module.exports = { startBridge };
