import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { flushAudit } from '../../src/governance/audit-trail.js';
import type { AuditRecord } from '../../src/store/types.js';
import { CANARY, startHarness, startHttpHarness, type Harness } from '../harness.js';

const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function harness(): Promise<Harness> {
  const h = await startHarness();
  closers.push(() => h.close());
  return h;
}

async function records(h: Harness): Promise<AuditRecord[]> {
  await flushAudit(h.deps.audit);
  return (await h.store.audit.list()).reverse();
}

describe('one audit record per tool call', () => {
  it('records who, which tool and account, the target, the outcome, the provider status and the duration', async () => {
    const h = await harness();
    const github = (await h.store.accounts.list({ provider: 'github' })).find((a) => a.label === 'sample')!;
    await h.ok('github_create_issue_comment', { ...REPO, issue_number: 2, body: 'Looks good to me.', account: 'sample' });
    const [record, ...more] = await records(h);
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      seq: 1,
      owner: '',
      auth: 'stdio',
      clientName: 'test-client 1.0.0',
      action: 'tool.call',
      tool: 'github_create_issue_comment',
      effect: 'write',
      account: github.id,
      target: 'sbx-octocat/hello-world#2',
      outcome: 'ok',
      providerStatus: 201,
    });
    expect(record!.durationMs).toEqual(expect.any(Number));
    expect(record!.at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('records a failed call with its error class and the provider status, and a refused input', async () => {
    const h = await harness();
    await h.fails('github_create_issue', { owner: 'sbx-octocat', repo: 'private-notes', title: 'x' });
    await h.fails('github_create_issue', { ...REPO, title: '' });
    const [provider, input] = await records(h);
    expect(provider).toMatchObject({ tool: 'github_create_issue', target: 'sbx-octocat/private-notes', outcome: 'error', errorClass: 'ProviderError', providerStatus: 410 });
    expect(input).toMatchObject({ tool: 'github_create_issue', outcome: 'error', errorClass: 'InputError' });
    expect(input!.providerStatus).toBeUndefined();
    expect(await h.store.audit.verify()).toMatchObject({ intact: true, records: 2 });
  });

  it('never holds a body, a subject, an address or a secret', async () => {
    const h = await harness();
    const body = 'BODY-4f1c the quarterly numbers';
    const subject = 'SUBJECT-77ab pricing';
    const address = 'marker.person@fabrikam.example';
    await h.ok('outlook_send_email', { to: [address], cc: [`Someone <cc.${address}>`], subject, body });
    await h.ok('github_create_issue', { ...REPO, title: subject, body, account: 'canary' });
    const viaApi = await h.call('github_api_call', { method: 'GET', endpoint: `/user?access_token=${CANARY}`, headers: { accept: 'application/vnd.github+json' }, account: 'canary' });
    expect(viaApi.isError).toBeFalsy();
    const stored = JSON.stringify(await records(h));
    for (const secret of [body, subject, address, 'fabrikam', CANARY, 'access_token']) expect(stored).not.toContain(secret);
    expect(stored).toContain('GET /user');
  });

  it('is on unless SWITCHBOARD_AUDIT is off, and a wrong value names the variable', () => {
    expect(loadConfig({}).audit).toBe(true);
    expect(loadConfig({ SWITCHBOARD_AUDIT: 'off' }).audit).toBe(false);
    expect(loadConfig({}).auditRetentionDays).toBe(365);
    expect(() => loadConfig({ SWITCHBOARD_AUDIT: 'maybe' })).toThrow(/SWITCHBOARD_AUDIT must be on or off/);
    expect(() => loadConfig({ SWITCHBOARD_AUDIT_RETENTION_DAYS: '0' })).toThrow(/SWITCHBOARD_AUDIT_RETENTION_DAYS must be a whole number/);
  });
});

describe('over HTTP', () => {
  it('records the client as it introduced itself, and an open loopback listener as no authentication', async () => {
    const { h, endpoint, close } = await startHttpHarness();
    closers.push(close);
    const client = new Client({ name: 'remote agent', version: '2.1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    closers.push(() => client.close());
    await client.callTool({ name: 'github_create_issue_comment', arguments: { ...REPO, issue_number: 1, body: 'hi' } });
    const [record] = await records(h);
    expect(record).toMatchObject({ auth: 'none', clientName: 'remote agent 2.1', tool: 'github_create_issue_comment', target: 'sbx-octocat/hello-world#1', outcome: 'ok' });
  });
});
