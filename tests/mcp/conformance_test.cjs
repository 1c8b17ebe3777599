// ctest mcp_conformance: the official MCP conformance suite (@modelcontextprotocol/conformance)
// runs its server scenarios against `gpuwhy mcp`, reached through a stdio-to-HTTP bridge made
// of the official SDK's transports (the suite speaks Streamable HTTP only). Passes when every
// scenario passes except those of conformance_baseline.yml, which must fail as a server without
// that feature fails: with gpuwhy's JSON-RPC "method not found" or "unknown tool" error.
//
//   node conformance_test.cjs GPUWHY_BINARY
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { requireFromNpmDir, npmDir } = require('./npm_packages.cjs');
const { startBridge } = require('./stdio_http_bridge.cjs');

const req = requireFromNpmDir('@modelcontextprotocol/sdk');
requireFromNpmDir('@modelcontextprotocol/conformance');
const gpuwhy = process.argv[2];
const baseline = path.join(__dirname, 'conformance_baseline.yml');
const suite = path.join(npmDir(), 'node_modules', '@modelcontextprotocol', 'conformance', 'dist',
                        'index.js');

function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('close', (code) => resolve({ code, output }));
  });
}

(async () => {
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'gpuwhy-mcp-conformance-'));
  const bridge = await startBridge(req, gpuwhy);
  let code = 1;
  try {
    const suiteRun = await run([suite, 'server', '--url', bridge.url, '--suite', 'active',
                                '--expected-failures', baseline, '-o', results]);
    console.log(suiteRun.output.replace(/\x1b\[[0-9;]*m/g, ''));
    code = suiteRun.code;
    const expected = fs.readFileSync(baseline, 'utf8').split('\n')
        .map((line) => line.match(/^\s+-\s+(\S+)/)).filter(Boolean).map((m) => m[1]);
    let passed = 0;
    for (const dir of fs.readdirSync(results)) {
      const scenario = expected.find((name) => dir.startsWith(`server-${name}-`));
      const checks = JSON.parse(fs.readFileSync(path.join(results, dir, 'checks.json'), 'utf8'));
      if (!scenario) {
        passed += checks.filter((c) => c.status === 'SUCCESS').length;
        continue;
      }
      if (scenario === 'dns-rebinding-protection') continue;
      for (const check of checks.filter((c) => c.status === 'FAILURE')) {
        if (!/MCP error -3260[12]: (method not found|unknown tool)/.test(check.errorMessage || '')) {
          console.log(`FAIL: ${scenario} failed otherwise than by a missing feature: ` +
                      `${check.errorMessage}`);
          code = 1;
        }
      }
    }
    if (passed < 4) {
      console.log(`FAIL: only ${passed} checks passed (server-initialize, ping, tools-list and ` +
                  'the SSE streams should)');
      code = 1;
    }
    console.log(code === 0 ? `PASS: ${passed} checks passed; the baseline's scenarios fail as ` +
                             'a tools-only server must' : 'FAIL');
  } finally {
    await bridge.close();
    fs.rmSync(results, { recursive: true, force: true });
  }
  process.exit(code);
})();
