// ctest mcp_sdk_client: an agent's session with `gpuwhy mcp`, driven by a client built on the
// official TypeScript SDK (@modelcontextprotocol/sdk, StdioClientTransport). On a real trace
// from the shared data it asks "why is this GPU idle?" (analyze), checks that every finding id,
// evidence id and range the answer cites is in `gpuwhy analyze --format json` of the same file,
// then goes from question to fix: the rest of the answer (next_page), the top finding in full
// (finding: its evidence, ranges and fix code), what to capture next (capture), the fixed run
// compared (diff: the num_workers=4 run of the same model, the finding resolved), and errors.
//
//   node sdk_client_test.cjs GPUWHY_BINARY TRACE
'use strict';
const assert = require('assert');
const fs = require('fs');
const { execFileSync } = require('child_process');
const { requireFromNpmDir, SKIP } = require('./npm_packages.cjs');

const req = requireFromNpmDir('@modelcontextprotocol/sdk');
const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');
const [gpuwhy, trace] = process.argv.slice(2);

if (!fs.existsSync(trace)) {
  console.log(`SKIP: ${trace} is absent (the shared data is not here)`);
  process.exit(SKIP);
}

function textOf(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

function citedFindings(text) {
  return [...text.matchAll(/^\d+\. finding ([\w.]+):/gm)].map((m) => m[1]);
}

(async () => {
  // What the command line reports: the ids an answer may cite.
  const report = JSON.parse(execFileSync(gpuwhy, ['analyze', '--format', 'json', trace],
                                         { maxBuffer: 64 << 20 }).toString());
  const findings = report.ranks.flatMap((r) => r.findings);
  const findingIds = new Set(findings.map((f) => f.id));
  const evidenceIds = new Set(findings.flatMap((f) => f.evidence.map((e) => e.id)));
  const rangeTexts = new Set(findings.flatMap((f) => f.ranges.map((r) => `${r.start_ns}..${r.end_ns}`)));
  assert.ok(findingIds.size > 0, 'the trace has findings');

  // A small page size, so the answer takes several pages and next_page is exercised.
  const transport = new StdioClientTransport({ command: gpuwhy, args: ['mcp', '--page-bytes', '2048'],
                                               stderr: 'inherit' });
  const client = new Client({ name: 'gpuwhy-sdk-client-test', version: '1.0.0' });
  await client.connect(transport);
  assert.strictEqual(client.getServerVersion().name, 'gpuwhy');

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ['analyze', 'finding', 'capture', 'next_page', 'diff', 'doctor']) {
    assert.ok(names.includes(name), `tools/list has ${name}: ${names}`);
  }

  // "Why is this GPU idle?"
  const first = await client.callTool({ name: 'analyze', arguments: { paths: [trace] } });
  assert.ok(!first.isError, textOf(first));
  let answer = textOf(first);
  assert.match(answer, /GPU idle [\d.,]+ ms\/step/, 'the verdict line says how long the GPU idles');
  let cursor = first.structuredContent.page ? first.structuredContent.page.next_cursor : null;
  let pages = 1;
  while (cursor) {
    const page = await client.callTool({ name: 'next_page', arguments: { cursor } });
    assert.ok(!page.isError, textOf(page));
    answer += textOf(page);
    cursor = page.structuredContent.page.next_cursor;
    ++pages;
  }
  assert.ok(pages > 1, 'a 2 KiB page size splits the answer');

  const cited = citedFindings(answer);
  assert.deepStrictEqual(cited, findings.map((f) => f.id),
                         'the answer cites every finding of the JSON report, in its order');
  for (const m of answer.matchAll(/^ {3}evidence ([\w.]+)/gm)) {
    assert.ok(evidenceIds.has(m[1]), `cited evidence ${m[1]} is in the JSON report`);
  }
  const citedRanges = [...answer.matchAll(/^ {3}range \S+ (\d+\.\.\d+) ns/gm)].map((m) => m[1]);
  assert.ok(citedRanges.length > 0, 'the answer cites time ranges');
  for (const range of citedRanges) assert.ok(rangeTexts.has(range), `range ${range} is in the report`);
  const structuredIds = first.structuredContent.ranks.flatMap((r) => r.findings.map((f) => f.id));
  assert.deepStrictEqual(structuredIds, findings.map((f) => f.id));

  // The top finding in full: every evidence line and range of the report, and the fix's code.
  const top = findings[0];
  const detail = await client.callTool({ name: 'finding',
                                         arguments: { paths: [trace], finding_id: top.id } });
  assert.ok(!detail.isError, textOf(detail));
  const detailText = textOf(detail);
  for (const e of top.evidence) assert.ok(detailText.includes(`evidence ${e.id} `), e.id);
  for (const r of top.ranges) assert.ok(detailText.includes(`${r.start_ns}..${r.end_ns} ns`));
  assert.ok(top.fixes.length > 0, 'the top finding has a fix');
  assert.ok(detailText.includes(top.fixes[0].code), 'the fix comes with its code');
  assert.deepStrictEqual(detail.structuredContent.finding, top,
                         'structured content is the JSON report\'s finding, whole');

  // What to capture next: the checklist's commands, as the report names them.
  const capture = await client.callTool({ name: 'capture', arguments: { paths: [trace] } });
  assert.ok(!capture.isError, textOf(capture));
  const commands = new Set(report.ranks.flatMap((r) => r.checklist.map((c) => c.command)));
  assert.ok(capture.structuredContent.captures.length > 0);
  for (const c of capture.structuredContent.captures) assert.ok(commands.has(c.command), c.command);

  // The fix applied: the same model with DataLoader workers (num_workers=4), when the shared
  // data has that run. diff says whether the top finding went away and the step got faster.
  const fixed = trace.replace(/2d19c63_resnet50_num_workers_0__/, '7bd25bd_resnet50_num_workers_4__');
  let verified = 'no fixed run to compare';
  if (fixed !== trace && fs.existsSync(fixed)) {
    const diff = await client.callTool({ name: 'diff', arguments: { base: trace, test: fixed } });
    assert.ok(!diff.isError, textOf(diff));
    const change = diff.structuredContent.findings.find((f) => f.id === top.id);
    assert.ok(change, `diff lists ${top.id}`);
    assert.strictEqual(change.change, 'resolved', `${top.id} went away with the fix`);
    assert.ok(diff.structuredContent.step_change_pct < 0 && diff.structuredContent.significant,
              diff.structuredContent.verdict);
    assert.ok(textOf(diff).includes(diff.structuredContent.verdict));
    verified = diff.structuredContent.verdict;
  }

  // Errors: a tool's failure is a result with isError and one line; a protocol error throws.
  const missing = await client.callTool({ name: 'analyze',
                                          arguments: { paths: ['/nonexistent/x.pt.trace.json'] } });
  assert.strictEqual(missing.isError, true);
  assert.match(textOf(missing), /^[^\n]*\/nonexistent\/x\.pt\.trace\.json[^\n]*$/);
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }),
                       (error) => error.code === -32602);

  await client.close();
  console.log(`PASS: ${cited.length} findings cited (top: ${top.id}) over ${pages} pages; ` +
              `finding, capture and errors as expected; after the fix: ${verified}`);
})().catch((error) => {
  console.log(`FAIL: ${error.stack || error}`);
  process.exit(1);
});
