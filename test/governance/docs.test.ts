import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLines, shellBlocks, SWITCHBOARD } from '../docs/markdown.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';

/** docs/governance.md's commands, run as written against a store of their own. */

let dir: string;
let store: Store;
const env = () => ({ PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: join(dir, 'data'), SWITCHBOARD_SECRET_KEY: 'governance docs key' });
const run = (script: string) => spawnSync('bash', ['-c', `${SWITCHBOARD}\n${script}`], { env: env(), cwd: dir, encoding: 'utf8', timeout: 20_000 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-governance-docs-'));
  store = await openStore({ dataDir: join(dir, 'data'), secretKey: 'governance docs key' });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/governance.md', () => {
  it('Writing a policy: the block runs as written, and the stored policy is what it said', { timeout: 120_000 }, async () => {
    const [block] = shellBlocks('docs/governance.md', '## Writing a policy');
    const writeFile = block!.slice(0, block!.indexOf('EOF\n', block!.indexOf('<<')) + 4);
    expect(run(writeFile).status).toBe(0);
    const outputs: string[] = [];
    for (const line of commandLines(block!.slice(writeFile.length))) {
      const r = run(line);
      expect(r.status, `${line}\n${r.stderr}`).toBe(0);
      outputs.push(r.stdout);
    }
    expect(outputs[0]).toMatch(/^Stored the policy\. Changed: teamDomains \[\] -> \["contoso\.example"\]; approvals added: Email outside the team\./);
    expect(JSON.parse(outputs[1]!)).toMatchObject({ source: 'the store', policy: { teamDomains: ['contoso.example'], approvals: [{ name: 'Email outside the team', approver: 'caller' }] } });
    expect(outputs[2]).toMatch(/^Cleared the policy/);
    expect(await store.policy.get()).toBeUndefined();
  });

  it('Writing a policy: the example policy is valid, and a mistake is refused as the page says', async () => {
    const json = /```json\n([\s\S]*?)```/.exec((await import('../docs/markdown.js')).docSection('docs/governance.md', '## Writing a policy'))![1]!;
    const { parsePolicy } = await import('../../src/policy.js');
    expect(parsePolicy(json, 'example').approvals.map((r) => r.approver)).toEqual(['caller', 'caller', 'admin', 'admin', 'caller']);
    expect(() => parsePolicy('{"approvals":[{"name":"x","approver":"boss"}]}', 'p.json')).toThrow('approvals.0.approver: Invalid option: expected one of "caller"|"admin"');
  });

  it('Approving: lists, approves and denies as written, the example ids standing for real ones', { timeout: 120_000 }, async () => {
    const now = Date.now();
    const pending = (id: string, at: number) => ({
      id, owner: '', tool: 'outlook_send_email', rule: 'Email outside the team', approver: 'caller' as const, inBand: false,
      summary: 'outlook_send_email; to jordan@fabrikam.example (outside the team)', seal: `seal-${id}`,
      createdAt: new Date(at).toISOString(), expiresAt: new Date(at + 900_000).toISOString(),
    });
    await store.approvals.create(pending('apr_000000000000000000000001', now));
    await store.approvals.create(pending('apr_000000000000000000000002', now + 1));
    const ids = ['apr_000000000000000000000001', 'apr_000000000000000000000002'];
    const outputs: string[] = [];
    for (const line of shellBlocks('docs/governance.md', '## Approving').flatMap(commandLines)) {
      const script = line.replace('apr_0123456789abcdef01234567', line.includes(' approve ') ? ids[0]! : ids[1]!);
      const r = run(script);
      expect(r.status, `${script}\n${r.stderr}`).toBe(0);
      outputs.push(r.stdout);
    }
    expect(outputs[0]).toContain(`${ids[1]}  outlook_send_email  rule "Email outside the team"`);
    expect(outputs[1]).toMatch(/^Approved apr_0+1/);
    expect(outputs[2]).toMatch(/^Denied apr_0+2/);
    expect((await store.approvals.get(ids[1]!))).toMatchObject({ status: 'denied', reason: 'not to customers yet', decidedBy: 'cli' });
  });
});
