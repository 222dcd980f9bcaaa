import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from '../../src/sandbox/github/graphql.js';
import { dateMatches, parseQuery } from '../../src/sandbox/github/search.js';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client } from './http.js';

/** The GitHub sandbox's search, Projects v2 GraphQL, reviews and Actions routes. */

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
const REPO = '/repos/sbx-octocat/hello-world';

beforeAll(async () => {
  sandbox = await startSandbox();
  api = client(sandbox.baseUrls.github, { authorization: `Bearer ${SANDBOX_TOKENS.github}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
});
afterAll(() => sandbox.close());

const gql = async (query: string, variables: Record<string, unknown> = {}) => {
  const res = await api('POST', '/graphql', { body: { query, variables } });
  expect(res.status).toBe(200);
  return res.body;
};

describe('search', () => {
  it('parses qualifiers, negation and quoted values', () => {
    expect(parseQuery('repo:o/r is:open label:"good first issue" -label:bug crash')).toEqual([
      { key: 'repo', value: 'o/r', negate: false },
      { key: 'is', value: 'open', negate: false },
      { key: 'label', value: 'good first issue', negate: false },
      { key: 'label', value: 'bug', negate: true },
      { key: undefined, value: 'crash', negate: false },
    ]);
  });

  it('matches GitHub date ranges', () => {
    expect(dateMatches('>=2025-03-01', '2025-03-01T00:00:00Z')).toBe(true);
    expect(dateMatches('<2025-03-01', '2025-03-01T00:00:00Z')).toBe(false);
    expect(dateMatches('2025-03-01..2025-03-02', '2025-03-02T23:00:00Z')).toBe(true);
    expect(dateMatches('2025-03-01', '2025-03-02T00:00:00Z')).toBe(false);
  });

  it('filters by repo, type, state, label, author, assignee and words, on the search rate bucket', async () => {
    const q = async (query: string) => (await api('GET', `/search/issues?q=${encodeURIComponent(query)}`)).body.items.map((i: any) => i.number);
    expect(await q('repo:sbx-octocat/hello-world is:pr')).toEqual([2]);
    expect(await q('repo:sbx-octocat/hello-world is:issue is:closed')).toEqual([1]);
    expect(await q('repo:sbx-octocat/hello-world label:"good first issue"')).toEqual([3]);
    expect(await q('repo:sbx-octocat/hello-world -label:enhancement is:open author:sbx-monalisa')).toEqual([4]);
    expect(await q('assignee:sbx-octocat is:open')).toEqual([3, 1]);
    expect(await q('localized in:title')).toEqual([3]);
    const res = await api('GET', '/search/issues?q=is:issue');
    expect(res.headers['x-ratelimit-resource']).toBe('search');
    expect(res.body).toMatchObject({ incomplete_results: false, total_count: expect.any(Number) });
    expect(res.body.items[0]).toMatchObject({ score: 1, repository_url: expect.stringContaining('/repos/') });
  });

  it('answers 422 for a missing q or an unknown repository', async () => {
    expect((await api('GET', '/search/issues')).body).toMatchObject({ message: 'Validation Failed', errors: [{ resource: 'Search', field: 'q', code: 'missing' }] });
    expect((await api('GET', '/search/issues?q=repo:a/b')).status).toBe(422);
  });
});

describe('GraphQL', () => {
  it('parses operations, variables, aliases, arguments and inline fragments', () => {
    const [op] = parse('query Q($a: Int! = 3, $b: [String!]) { x: f(n: $a, o: {k: [1, "s", true, null, ENUM]}) { ... on T { id } __typename } }');
    expect(op).toMatchObject({ type: 'query', name: 'Q', variables: [{ name: 'a', type: 'Int!' }, { name: 'b', type: '[String!]' }] });
    expect(op!.selections[0]).toMatchObject({ alias: 'x', name: 'f', selections: [{ kind: 'inline', on: 'T' }, { name: '__typename' }] });
  });

  it('answers 200 with errors for syntax, unknown fields and missing variables', async () => {
    expect((await gql('query { viewer { login }')).errors[0].message).toMatch(/^Parse error on/);
    const unknown = await gql('{ viewer { nope } }');
    expect(unknown).toEqual({ errors: [expect.objectContaining({ message: "Field 'nope' doesn't exist on type 'User'", extensions: expect.objectContaining({ code: 'undefinedField' }) })] });
    expect((await gql('query($n:Int!){ viewer { projectV2(number:$n){ id } } }')).errors[0].message).toBe('Variable $n of type Int! was provided invalid value');
    expect((await api('POST', '/graphql', { body: {} })).body.errors[0].message).toMatch(/query attribute must be specified/);
  });

  it('resolves org and user projects with the Status options, and NOT_FOUND with a path for an unknown number', async () => {
    const q = 'query($o:String!,$n:Int!){ repositoryOwner(login:$o){ __typename ... on ProjectV2Owner { projectV2(number:$n){ id title field(name:"Status"){ ... on ProjectV2SingleSelectField { id options { name } } } } } } }';
    const org = await gql(q, { o: 'sbx-org', n: 1 });
    expect(org.data.repositoryOwner).toMatchObject({ __typename: 'Organization', projectV2: { title: 'Roadmap', field: { id: expect.stringMatching(/^PVTSSF_/), options: [{ name: 'Todo' }, { name: 'In Progress' }, { name: 'Done' }] } } });
    expect((await gql(q, { o: 'sbx-octocat', n: 1 })).data.repositoryOwner.__typename).toBe('User');
    const missing = await gql(q, { o: 'sbx-org', n: 7 });
    expect(missing.data.repositoryOwner.projectV2).toBeNull();
    expect(missing.errors).toEqual([{ type: 'NOT_FOUND', path: ['repositoryOwner', 'projectV2'], locations: [expect.any(Object)], message: 'Could not resolve to a ProjectV2 with the number 7.' }]);
    expect((await gql(q, { o: 'nobody-at-all', n: 1 })).data.repositoryOwner).toBeNull();
    expect((await gql('{ organization(login:"sbx-octocat"){ id } }')).errors[0]).toMatchObject({ type: 'NOT_FOUND' });
  });

  it('adds an item once, sets a single-select value, and validates the option', async () => {
    const owner = await gql('{ user(login:"sbx-octocat"){ projectV2(number:1){ id field(name:"Status"){ ... on ProjectV2SingleSelectField { id options { id name } } } } } }');
    const project = owner.data.user.projectV2;
    const issue = await gql('{ repository(owner:"sbx-octocat", name:"hello-world"){ issue(number:5){ id projectItems(first:10){ totalCount } } } }');
    expect(issue.data.repository.issue.projectItems.totalCount).toBe(0);
    const add = 'mutation($p:ID!,$c:ID!){ addProjectV2ItemById(input:{projectId:$p, contentId:$c}){ item { id type } } }';
    const first = await gql(add, { p: project.id, c: issue.data.repository.issue.id });
    const again = await gql(add, { p: project.id, c: issue.data.repository.issue.id });
    expect(first.data.addProjectV2ItemById.item).toEqual(again.data.addProjectV2ItemById.item);
    const itemId = first.data.addProjectV2ItemById.item.id;
    const set = 'mutation($p:ID!,$i:ID!,$f:ID!,$o:String!){ updateProjectV2ItemFieldValue(input:{projectId:$p,itemId:$i,fieldId:$f,value:{singleSelectOptionId:$o}}){ projectV2Item { id fieldValueByName(name:"Status"){ ... on ProjectV2ItemFieldSingleSelectValue { name } } } } }';
    const done = project.field.options.find((o: any) => o.name === 'Done').id;
    const ok = await gql(set, { p: project.id, i: itemId, f: project.field.id, o: done });
    expect(ok.data.updateProjectV2ItemFieldValue.projectV2Item.fieldValueByName).toEqual({ name: 'Done' });
    const bad = await gql(set, { p: project.id, i: itemId, f: project.field.id, o: 'nope' });
    expect(bad).toMatchObject({ data: { updateProjectV2ItemFieldValue: null }, errors: [{ path: ['updateProjectV2ItemFieldValue'], message: 'The single select option Id does not belong to the field' }] });
    const wrongItem = await gql(set, { p: project.id, i: 'PVTI_nope', f: project.field.id, o: done });
    expect(wrongItem.errors[0]).toMatchObject({ type: 'NOT_FOUND', message: "Could not resolve to a node with the global id of 'PVTI_nope'" });
  });

  it('counts against the graphql rate bucket and refuses a bad token with 401', async () => {
    const res = await api('POST', '/graphql', { body: { query: '{ viewer { login } }' } });
    expect(res.body).toEqual({ data: { viewer: { login: 'sbx-octocat' } } });
    expect(res.headers['x-ratelimit-resource']).toBe('graphql');
    const bad = await client(sandbox.baseUrls.github, { authorization: 'Bearer nope' })('POST', '/graphql', { body: { query: '{ viewer { login } }' } });
    expect(bad.status).toBe(401);
  });
});

describe('reviews', () => {
  it('submits, refuses self-approval, and dismisses', async () => {
    const approved = await api('POST', `${REPO}/pulls/2/reviews`, { body: { event: 'APPROVE' } });
    expect(approved.body).toMatchObject({ state: 'APPROVED', user: { login: 'sbx-octocat' } });
    expect((await api('POST', `${REPO}/pulls/2/reviews`, { body: { event: 'COMMENT' } })).status).toBe(422);
    const dismissed = await api('PUT', `${REPO}/pulls/2/reviews/${approved.body.id}/dismissals`, { body: { message: 'stale' } });
    expect(dismissed.body.state).toBe('DISMISSED');
    const list = await api('GET', `${REPO}/pulls/2/reviews`);
    expect(list.body.map((r: any) => r.state)).toEqual(['DISMISSED']);
    const own = await api('POST', `${REPO}/pulls`, { body: { title: 'Mine', head: 'docs', base: 'main' } });
    const self = await api('POST', `${REPO}/pulls/${own.body.number}/reviews`, { body: { event: 'APPROVE' } });
    expect(self.body).toMatchObject({ message: 'Unprocessable Entity', errors: ['Can not approve your own pull request'] });
  });
});

describe('actions', () => {
  it('lists workflows and gets one by id or file name', async () => {
    const all = await api('GET', `${REPO}/actions/workflows`);
    expect(all.body).toMatchObject({ total_count: 2, workflows: [{ id: 161335, name: 'CI', path: '.github/workflows/ci.yml', state: 'active' }, { name: 'Nightly', state: 'disabled_manually' }] });
    expect((await api('GET', `${REPO}/actions/workflows/ci.yml`)).body.id).toBe(161335);
    expect((await api('GET', `${REPO}/actions/workflows/161336`)).body.name).toBe('Nightly');
    expect((await api('GET', `${REPO}/actions/workflows/x.yml`)).status).toBe(404);
  });

  it('dispatch answers 204 by default, 200 with run details when asked or on 2026-03-10, and queues a run', async () => {
    const plain = await api('POST', `${REPO}/actions/workflows/ci.yml/dispatches`, { body: { ref: 'main' } });
    expect(plain.status).toBe(204);
    const asked = await api('POST', `${REPO}/actions/workflows/ci.yml/dispatches`, { body: { ref: 'refs/heads/docs', return_run_details: true } });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ workflow_run_id: expect.any(Number), run_url: expect.stringContaining('/actions/runs/'), html_url: expect.stringContaining('https://github.com/') });
    const v2026 = await api('POST', `${REPO}/actions/workflows/ci.yml/dispatches`, { body: { ref: 'main' }, headers: { 'x-github-api-version': '2026-03-10' } });
    expect(v2026.status).toBe(200);
    const run = await api('GET', `${REPO}/actions/runs/${asked.body.workflow_run_id}`);
    expect(run.body).toMatchObject({ status: 'queued', conclusion: null, event: 'workflow_dispatch', head_branch: 'docs', name: 'CI', actor: { login: 'sbx-octocat' } });
    expect((await api('POST', `${REPO}/actions/workflows/ci.yml/dispatches`, { body: {} })).body.message).toMatch(/"ref" wasn't supplied/);
  });

  it('filters runs by status or conclusion and created range, with Link paging', async () => {
    const q = async (query: string) => (await api('GET', `${REPO}/actions/runs?${query}`)).body;
    expect((await q('status=queued')).workflow_runs.every((r: any) => r.status === 'queued')).toBe(true);
    expect((await q('status=success')).workflow_runs.map((r: any) => r.run_number).sort()).toEqual([1, 1, 2, 4]);
    expect((await q('created=2025-03-02..2025-03-02')).total_count).toBe(2);
    expect((await api('GET', `${REPO}/actions/runs?status=bogus`)).status).toBe(422);
    const page = await api('GET', `${REPO}/actions/workflows/ci.yml/runs?per_page=2`);
    expect(page.body.workflow_runs).toHaveLength(2);
    expect(page.headers.link).toContain('rel="next"');
  });

  it('enable and disable answer 204 and change the state', async () => {
    expect((await api('PUT', `${REPO}/actions/workflows/161336/enable`)).status).toBe(204);
    expect((await api('GET', `${REPO}/actions/workflows/nightly.yml`)).body.state).toBe('active');
    expect((await api('PUT', `${REPO}/actions/workflows/nightly.yml/disable`)).status).toBe(204);
    expect((await api('GET', `${REPO}/actions/workflows/161336`)).body.state).toBe('disabled_manually');
  });
});
