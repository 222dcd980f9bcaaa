import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMcpTool } from '../../src/mcp/tools.js';
import { buildTools } from '../../src/registry.js';
import { githubRoutes, outlookRoutes, salesRoutes, SANDBOX_TOKENS, vercelRoutes, type Sandbox } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';
import { githubDefinition } from './github-openapi.js';
import { asDocumented, githubExamples } from './github-examples.js';
import { graphDefinition } from './graph-sdk.js';
import { byDefinition, salesRecordsThin, serveThin } from './thin.js';
import { vercelDefinition } from './vercel-sdk.js';

/**
 * Every tool, called while each provider answers with every field its published definition lets it leave out left
 * out (GitHub's OpenAPI description, Vercel's SDK models, the Graph SDK's models, the sales stand-in's records): each
 * result still validates against the tool's advertised output schema, with a strict JSON Schema 2020-12 validator.
 */

const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
type Args = Record<string, unknown>;
type Results = Record<string, any>;

interface Known {
  messages: string[];
  gist: string;
  run: number;
}

/** Ids of the stand-ins' own data, read before their answers are thinned or replaced by documented examples. */
async function knownIds(sandbox: Sandbox): Promise<Known> {
  const github = async (path: string) => (await fetch(sandbox.baseUrls.github + path, { headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}`, accept: 'application/vnd.github+json' } })).json();
  return {
    messages: sandbox.states.outlook.messages.slice(0, 2).map((m) => m.id),
    gist: (await github('/gists'))[0].id,
    run: (await github('/repos/sbx-octocat/hello-world/actions/runs?per_page=1')).workflow_runs[0].id,
  };
}

/** The calls, in order; a step may use what an earlier one returned, or ids read before the answers were changed. */
const STEPS: Array<[tool: string, args: (r: Results, known: Known) => Args]> = [
  ['outlook_find_email', () => ({})],
  ['outlook_list_folders', () => ({ limit: 3 })],
  ['outlook_list_labels', () => ({})],
  ['outlook_add_label', (_, known) => ({ id: known.messages[0], label: 'Thin', create_if_missing: true })],
  ['outlook_remove_label', (_, known) => ({ id: known.messages[0], label: 'Thin' })],
  ['outlook_move_email', (_, known) => ({ id: known.messages[1], destination: 'Archive' })],
  ['outlook_send_email', () => ({ to: ['jordan.lee@fabrikam.example'], subject: 'Volume pricing', body: 'Pricing.' })],
  ['outlook_list_events', () => ({ start: `${day(0)}T00:00:00Z`, end: `${day(7)}T00:00:00Z`, limit: 10 })],
  ['outlook_create_event', () => ({ subject: 'Plan', start: { dateTime: `${day(2)}T10:00:00`, timeZone: 'UTC' }, end: { dateTime: `${day(2)}T11:00:00`, timeZone: 'UTC' }, attendees: [{ address: 'priya@contoso.example' }] })],
  ['outlook_update_event', (r) => ({ id: r.outlook_create_event.id, subject: 'Final plan' })],
  ['outlook_delete_event', (r) => ({ id: r.outlook_create_event.id })],
  ['outlook_get_free_busy', () => ({ schedules: ['priya@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T16:00:00`, interval_minutes: 60 })],
  ['outlook_check_availability', () => ({ people: ['priya@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T12:00:00` })],
  ['outlook_create_contact', () => ({ givenName: 'Dana', surname: 'Ortiz', emailAddresses: [{ address: 'dana.ortiz@contoso.example' }] })],
  ['outlook_update_contact', (r) => ({ id: r.outlook_create_contact.id, jobTitle: 'CEO' })],
  ['outlook_find_contact', () => ({ email: 'dana.ortiz@contoso.example' })],
  ['outlook_list_contacts', () => ({ limit: 2 })],
  ['outlook_api_call', () => ({ method: 'GET', endpoint: '/me/messages?$top=2' })],
  ['github_get_repository', () => REPO],
  ['github_get_repository_content', () => ({ ...REPO, path: 'README.md' })],
  ['github_create_branch', () => ({ ...REPO, branch: 'topic/thin', from: 'main' })],
  ['github_create_or_update_file', () => ({ ...REPO, path: 'docs/thin.md', message: 'Add notes', branch: 'topic/thin', content: 'Hello\n' })],
  ['github_get_commit', () => ({ ...REPO, ref: 'main' })],
  ['github_list_commits', () => ({ ...REPO, sha: 'main', limit: 2 })],
  ['github_list_releases', () => ({ ...REPO, limit: 1 })],
  ['github_create_repository', () => ({ name: 'thin-made', description: 'Made by a tool', private: true, auto_init: true })],
  ['github_star_repository', () => ({ owner: 'sbx-org', repo: 'platform' })],
  ['github_create_issue', () => ({ ...REPO, title: 'Add tests', body: 'We need some.', labels: ['bug'], assignees: ['sbx-hubot'] })],
  ['github_create_issue_comment', () => ({ ...REPO, issue_number: 3, body: 'Looks good.' })],
  ['github_update_issue', () => ({ ...REPO, issue_number: 3, add_labels: ['bug'], state: 'closed' })],
  ['github_get_issue_assignees', () => ({ ...REPO, issue_number: 3 })],
  ['github_search_issues_and_pull_requests', () => ({ q: 'repo:sbx-octocat/hello-world label:enhancement' })],
  ['github_create_pull_request', () => ({ ...REPO, head: 'topic/thin', base: 'main', title: 'Notes', body: 'Adds notes' })],
  ['github_get_reviewers', () => ({ ...REPO, pull_number: 2 })],
  ['github_update_project_item_status', () => ({ owner: 'sbx-octocat', project_number: 1, item_url: 'https://github.com/sbx-octocat/hello-world/issues/1', status: 'In Progress' })],
  ['github_create_gist', () => ({ files: { 'a.md': 'A' }, description: 'Scratch', public: true })],
  ['github_update_gist', (_, known) => ({ gist_id: known.gist, files: { 'a.md': 'B' } })],
  ['github_list_gists', () => ({})],
  ['github_create_workflow_dispatch', () => ({ ...REPO, workflow: 'ci.yml', ref: 'main' })],
  ['github_disable_workflow', () => ({ ...REPO, workflow: 'ci.yml' })],
  ['github_enable_workflow', () => ({ ...REPO, workflow: 'ci.yml' })],
  ['github_list_workflow_runs', () => ({ ...REPO, limit: 2 })],
  ['github_get_workflow_run', (_, known) => ({ ...REPO, run_id: known.run })],
  ['github_api_call', () => ({ method: 'GET', endpoint: '/repos/sbx-octocat/hello-world', headers: { accept: 'application/vnd.github+json' } })],
  ['sales_find_contact', () => ({ email: 'jordan.lee@fabrikam.example' })],
  ['sales_enrich_contacts', () => ({ contacts: [{ email: 'sam.rivera@acme.example' }, { linkedInUrl: 'https://www.linkedin.com/in/priya-patel-sbx' }] })],
  ['sales_search_contacts', () => ({ jobTitles: ['Engineer'], limit: 10 })],
  ['sales_find_company', () => ({ domain: 'contoso.example' })],
  ['sales_enrich_companies', () => ({ companies: [{ domain: 'acme.example' }, { name: 'Globex' }] })],
  ['sales_search_companies', () => ({ industries: ['software'] })],
  ['sales_api_call', () => ({ method: 'GET', endpoint: '/account/usage' })],
  ['vercel_create_deployment', () => ({ project: 'hello-world', branch: 'main', environment: 'production', repo: 'sbx-octocat/hello-world' })],
  ['vercel_list_deployments', () => ({ project: 'hello-world', limit: 5 })],
  ['vercel_cancel_deployment', (r) => ({ id: r.vercel_create_deployment.id })],
  ['vercel_api_call', () => ({ method: 'GET', path: '/v9/projects' })],
  ['triggers_create', () => ({ kind: 'github.new_issue', config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } })],
  ['triggers_list', () => ({})],
  ['events_next', () => ({ consumer: 'thin' })],
  ['triggers_delete', (r) => ({ id: r.triggers_create.trigger.id })],
  ['accounts_list', () => ({})],
];

/** Calls every step, checking each result against its tool's advertised output schema with a strict 2020-12 validator. */
async function callEvery(h: Harness, known: Known): Promise<{ results: Results; problems: string[] }> {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>(buildTools({ readOnly: false }).map((t) => [t.name, ajv.compile(toMcpTool(t).outputSchema!)]));
  const results: Results = {};
  const problems: string[] = [];
  for (const [tool, args] of STEPS) {
    let input: Args;
    try {
      input = args(results, known);
    } catch {
      problems.push(`${tool}: not called, as the step it needs failed`);
      continue;
    }
    // The harness's client checks structuredContent against the advertised schema too, and throws when it does not fit.
    const result = (await h.client.callTool({ name: tool, arguments: input }).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }))) as CallToolResult;
    if (result.isError) {
      problems.push(`${tool}: ${(result.content[0] as { text: string }).text.slice(0, 300)}`);
      continue;
    }
    results[tool] = result.structuredContent;
    const validate = validators.get(tool)!;
    if (!validate(result.structuredContent)) problems.push(`${tool}: ${ajv.errorsText(validate.errors)}`);
  }
  return { results, problems };
}

describe('the calls', () => {
  it('reach every tool of the registry', () => {
    expect(buildTools({ readOnly: false }).map((t) => t.name).filter((name) => !STEPS.some(([tool]) => tool === name))).toEqual([]);
  });
});

/**
 * Two ways to be thin: lists that hold something stay (so each record in them is thinned), or they go too when the
 * definition allows. GitHub's GraphQL answers are left whole: GraphQL sends every field asked for, null or not.
 */
describe.each([
  { lists: 'kept, their records thinned', keepLists: true },
  { lists: 'left out too', keepLists: false },
])('results when providers leave out every field their definitions let them, lists $lists', ({ keepLists }) => {
  let h: Harness;
  let run: { results: Results; problems: string[] };
  beforeAll(async () => {
    h = await startHarness();
    const known = await knownIds(h.sandbox);
    const { servers, states } = h.sandbox;
    serveThin(servers.github, githubRoutes(states.github), byDefinition(githubDefinition(), { keepLists }));
    serveThin(servers.outlook, outlookRoutes(states.outlook), byDefinition(await graphDefinition(), { keepLists, keep: (key) => key === 'id' }));
    serveThin(servers.vercel, vercelRoutes(states.vercel), byDefinition(await vercelDefinition(), { keepLists }));
    serveThin(servers.sales, salesRoutes(states.sales), salesRecordsThin);
    run = await callEvery(h, known);
  }, 180_000);
  afterAll(() => h?.close());

  it('the answers were thinned: fields the definitions make optional are gone', () => {
    const repo = h.sandbox.servers.github.exchanges.find((e) => e.route === 'GET /repos/:owner/:repo' && e.status === 200)!;
    const answer = JSON.parse(String(repo.payload));
    expect(answer.full_name).toBe('sbx-octocat/hello-world');
    expect(answer).not.toHaveProperty('permissions');
    expect('topics' in answer).toBe(keepLists);
    const messages = JSON.parse(String(h.sandbox.servers.outlook.exchanges.find((e) => e.request.path === '/v1.0/me/messages' && e.status === 200)!.payload));
    if (keepLists) expect(Object.keys(messages.value[0]).filter((k) => !Array.isArray(messages.value[0][k]))).toEqual(['id']);
    else expect(messages).not.toHaveProperty('value');
  });

  it('every result is valid against its advertised output schema', () => {
    expect(run.problems).toEqual([]);
  });

  it('a required field the answer lacked comes as null', () => {
    expect(run.results.github_get_repository).toMatchObject({ full_name: 'sbx-octocat/hello-world', permission: null });
    expect(run.results.github_create_or_update_file).toMatchObject({ path: 'docs/thin.md', sha: null, commit: { sha: null, html_url: null } });
    expect(run.results.github_create_gist).toMatchObject({ id: null, html_url: null, public: null, updated_at: null });
  });
});

describe("results when GitHub answers with its documented examples (@octokit/openapi)", () => {
  let h: Harness;
  let run: { results: Results; problems: string[] };
  beforeAll(async () => {
    h = await startHarness();
    const known = await knownIds(h.sandbox);
    serveThin(h.sandbox.servers.github, githubRoutes(h.sandbox.states.github), asDocumented(githubExamples()));
    run = await callEvery(h, known);
  }, 180_000);
  afterAll(() => h?.close());

  it('every result is valid against its advertised output schema', () => {
    expect(run.problems).toEqual([]);
  });

  it('the documented repository lacks the language its schema requires, and the result says null', () => {
    expect(githubExamples().named('full-repository-default-response')).not.toHaveProperty('language');
    expect(run.results.github_get_repository).toMatchObject({ full_name: 'octocat/Hello-World', language: null });
  });
});
