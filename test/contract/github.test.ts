import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubState, githubRoutes, SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';
import { checkExchanges, combined, summary, uncovered, type ContractReport, type Definition } from './check.js';
import { githubGraphqlDefinition } from './github-graphql.js';
import { githubDefinition } from './github-openapi.js';

/** Routes of the GitHub stand-in that neither GitHub's REST description nor its GraphQL schema holds, and why. */
const EXEMPT: Record<string, string> = {};
const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };
const PATH = '/repos/sbx-octocat/hello-world';

let h: Harness;
let report: ContractReport;
let definition: Definition;

/** Calls the GitHub stand-in as the sample account would, for the routes no tool reaches. */
async function gh(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(h.sandbox.baseUrls.github + path, {
    method,
    headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}`, accept: 'application/vnd.github+json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

beforeAll(async () => {
  h = await startHarness({ listen: true });
  h.sandbox.states.github.webhooksOnChange = false;
  await driveTools();
  await driveTriggers();
  await driveRest();
  definition = combined(githubDefinition(), githubGraphqlDefinition());
  report = await checkExchanges(definition, h.sandbox.servers.github.exchanges, EXEMPT);
  console.log(summary('GitHub', report, Object.keys(githubRoutes(createGithubState())).length));
}, 120_000);
afterAll(() => h?.close());

async function driveTools() {
  await h.ok('github_get_repository', REPO);
  await h.ok('github_get_repository_content', { ...REPO, path: 'README.md' });
  await h.ok('github_get_repository_content', { ...REPO, path: '.github/' });
  await h.ok('github_create_branch', { ...REPO, branch: 'topic/one', from: 'main' });
  await h.ok('github_create_or_update_file', { ...REPO, path: 'docs/notes.md', message: 'Add notes', branch: 'topic/one', content: 'Hello\n' });
  await h.ok('github_get_commit', { ...REPO, ref: 'main' });
  await h.ok('github_list_commits', { ...REPO, sha: 'main', path: 'README.md', since: '2025-01-01T00:00:00Z', limit: 2 });
  await h.ok('github_list_releases', { ...REPO, limit: 1 });
  await h.ok('github_create_repository', { name: 'tool-made', description: 'Made by a tool', private: true, auto_init: true });
  await h.ok('github_create_repository', { name: 'svc', org: 'sbx-org', license_template: 'mit' });
  await h.ok('github_star_repository', { owner: 'sbx-org', repo: 'platform' });
  const issue = await h.ok('github_create_issue', { ...REPO, title: 'Add tests', body: 'We need some.', labels: ['bug'], assignees: ['sbx-hubot'] });
  await h.ok('github_create_issue_comment', { ...REPO, issue_number: issue.number, body: 'Looks good to me.' });
  await h.ok('github_update_issue', { ...REPO, issue_number: 4, labels: ['bug', 'question'], assignees: [], state: 'closed', state_reason: 'not_planned' });
  await h.ok('github_update_issue', { ...REPO, issue_number: 3, add_labels: ['bug'], remove_labels: ['good first issue'] });
  await h.ok('github_get_issue_assignees', { ...REPO, issue_number: 3 });
  await h.ok('github_get_issue_assignees', { ...REPO, username: 'sbx-hubot' });
  await h.ok('github_search_issues_and_pull_requests', { q: 'repo:sbx-octocat/hello-world label:enhancement', sort: 'created', order: 'asc' });
  await h.ok('github_create_pull_request', { ...REPO, head: 'topic/one', base: 'main', title: 'Notes', body: 'Adds notes', draft: true });
  await h.ok('github_get_reviewers', { ...REPO, pull_number: 2 });
  await h.ok('github_update_project_item_status', { owner: 'sbx-octocat', project_number: 1, item_url: 'https://github.com/sbx-octocat/hello-world/issues/1', status: 'In Progress' });
  const gist = await h.ok('github_create_gist', { files: { 'a.md': 'A', 'old.txt': 'old' }, description: 'Scratch', public: true });
  await h.ok('github_update_gist', { gist_id: gist.id, files: { 'a.md': 'B' }, rename: { 'old.txt': 'new.txt' } });
  await h.ok('github_list_gists', { since: '2025-02-01T00:00:00Z' });
  await h.ok('github_list_gists', { username: 'sbx-hubot' });
  await h.ok('github_create_workflow_dispatch', { ...REPO, workflow: 'ci.yml', ref: 'main', inputs: { greeting: 'hola' } });
  await h.ok('github_disable_workflow', { ...REPO, workflow: 'ci.yml' });
  await h.ok('github_enable_workflow', { ...REPO, workflow: '161335' });
  const runs = await h.ok('github_list_workflow_runs', { ...REPO, limit: 2 });
  await h.ok('github_list_workflow_runs', { ...REPO, workflow: 'ci.yml', event: 'pull_request', status: 'failure', branch: 'feature/greeting' });
  await h.ok('github_get_workflow_run', { ...REPO, run_id: runs.workflow_runs[0].id });
}

async function driveTriggers() {
  for (const [kind, config] of [
    ['github.new_issue', { repo: 'sbx-octocat/hello-world' }],
    ['github.new_star', { repo: 'sbx-octocat/hello-world' }],
  ] as const) {
    const created = await h.ok('triggers_create', { kind, account: 'sample', config });
    await h.ok('triggers_delete', { id: created.trigger.id });
  }
}

async function driveRest() {
  h.sandbox.states.github.scopes.push('admin:org_hook');
  await gh('GET', '/user');
  await gh('GET', '/user/emails');
  await gh('GET', '/user/memberships/orgs/sbx-org');
  await gh('GET', '/users/sbx-hubot');
  await gh('GET', '/orgs/sbx-org');
  await gh('GET', '/rate_limit');
  await gh('GET', '/user/repos?per_page=2');
  await gh('GET', '/orgs/sbx-org/repos');
  await gh('GET', '/user/starred/sbx-org/platform');
  await gh('DELETE', '/user/starred/sbx-org/platform');
  await gh('GET', `${PATH}/contents`);
  const file = await gh('GET', `${PATH}/contents/docs/notes.md?ref=topic/one`);
  await gh('DELETE', `${PATH}/contents/docs/notes.md`, { message: 'Remove notes', sha: file.sha, branch: 'topic/one' });
  await gh('GET', `${PATH}/branches`);
  await gh('GET', `${PATH}/branches/main`);
  await gh('GET', `${PATH}/git/ref/heads/main`);
  await gh('GET', `${PATH}/issues?state=all&per_page=3`);
  await gh('GET', `${PATH}/issues/3`);
  await gh('GET', `${PATH}/issues/3/comments`);
  await gh('GET', `${PATH}/assignees`);
  await gh('GET', `${PATH}/collaborators`);
  await gh('GET', `${PATH}/collaborators/sbx-hubot`);
  await gh('GET', `${PATH}/collaborators/sbx-hubot/permission`);
  await gh('PUT', `${PATH}/collaborators/sbx-monalisa`, { permission: 'push' });
  await gh('PUT', `${PATH}/collaborators/sbx-nobody`, { permission: 'push' });
  await gh('GET', `${PATH}/invitations`);
  await gh('DELETE', `${PATH}/collaborators/sbx-hubot`);
  await gh('GET', `${PATH}/pulls?state=all`);
  await gh('GET', `${PATH}/pulls/2`);
  await gh('PATCH', `${PATH}/pulls/2`, { title: 'Renamed' });
  await gh('POST', `${PATH}/pulls/2/requested_reviewers`, { reviewers: ['sbx-monalisa'] });
  await gh('GET', `${PATH}/pulls/2/requested_reviewers`);
  await gh('DELETE', `${PATH}/pulls/2/requested_reviewers`, { reviewers: ['sbx-monalisa'] });
  const review = await gh('POST', `${PATH}/pulls/2/reviews`, { event: 'COMMENT', body: 'Nice.' });
  await gh('GET', `${PATH}/pulls/2/reviews`);
  await gh('PUT', `${PATH}/pulls/2/reviews/${review.id}/dismissals`, { message: 'Stale' });
  await gh('PUT', `${PATH}/pulls/2/merge`, { merge_method: 'squash' });
  await gh('GET', `${PATH}/actions/workflows`);
  await gh('GET', `${PATH}/actions/workflows/ci.yml`);
  await gh('GET', `${PATH}/actions/workflows/ci.yml/runs`);
  await gh('GET', `${PATH}/actions/runs?per_page=1`);
  await gh('GET', '/gists');
  const gist = (await gh('GET', '/users/sbx-octocat/gists'))[0];
  await gh('GET', `/gists/${gist.id}`);
  await gh('DELETE', `/gists/${gist.id}`);
  await gh('GET', `${PATH}/subscribers`);
  await gh('PUT', `${PATH}/subscription`, { subscribed: true });
  await gh('GET', `${PATH}/subscription`);
  await gh('DELETE', `${PATH}/subscription`);
  await gh('GET', '/notifications?all=true');
  for (const base of [PATH, '/orgs/sbx-org']) {
    const hook = await gh('POST', `${base}/hooks`, { name: 'web', active: true, events: ['issues'], config: { url: 'https://hooks.example/in', content_type: 'json', secret: 'shh' } });
    await gh('GET', `${base}/hooks`);
    await gh('GET', `${base}/hooks/${hook.id}`);
    await gh('PATCH', `${base}/hooks/${hook.id}`, { events: ['issues', 'star'] });
    await gh('POST', `${base}/hooks/${hook.id}/pings`);
    const deliveries = await gh('GET', `${base}/hooks/${hook.id}/deliveries`);
    if (deliveries[0]) {
      await gh('GET', `${base}/hooks/${hook.id}/deliveries/${deliveries[0].id}`);
      await gh('POST', `${base}/hooks/${hook.id}/deliveries/${deliveries[0].id}/attempts`);
    }
    await gh('DELETE', `${base}/hooks/${hook.id}`);
  }
}

describe("the GitHub stand-in, held to api.github.com's OpenAPI description (@octokit/openapi) and GraphQL schema (@octokit/graphql-schema)", () => {
  it('sends and answers only what the description allows', () => {
    expect(report.problems).toEqual([]);
  });

  it('is checked on every route it serves', () => {
    expect(uncovered(Object.keys(githubRoutes(createGithubState())), report.routes, EXEMPT)).toEqual([]);
  });

  it('fails an answer or a request that drifts from the description', async () => {
    const exchanges = h.sandbox.servers.github.exchanges;
    const repo = exchanges.find((e) => e.route === 'GET /repos/:owner/:repo' && e.status === 200)!;
    const { full_name: _gone, ...rest } = JSON.parse(String(repo.payload));
    const issue = exchanges.find((e) => e.route === 'POST /repos/:owner/:repo/issues')!;
    const body = { ...issue.request.body, labels: 'bug' };
    const graphql = exchanges.find((e) => e.route === 'POST /graphql' && String(e.payload).includes('projectV2'))!;
    const answer = JSON.parse(String(graphql.payload));
    answer.data.repositoryOwner.projectV2.id = null;
    const query = { query: '{ viewer { colour } }' };
    const drifted = [
      { ...repo, payload: JSON.stringify({ ...rest, id: 'R_1' }) },
      { ...issue, request: { ...issue.request, query: new URLSearchParams('colour=red'), body, rawBody: Buffer.from(JSON.stringify(body)) } },
      { ...graphql, payload: JSON.stringify(answer) },
      { ...graphql, request: { ...graphql.request, body: query, rawBody: Buffer.from(JSON.stringify(query)) }, payload: '{"data":null,"errors":[{"message":"x"}]}' },
    ];
    expect((await checkExchanges(definition, drifted)).problems).toEqual([
      expect.stringMatching(/GET \/repos\/\{owner\}\/\{repo\}\): answer must have required property 'full_name'$/),
      expect.stringMatching(/: answer\/id must be integer$/),
      expect.stringMatching(/: query parameter 'colour' is not documented$/),
      expect.stringMatching(/: request body\/labels must be array$/),
      expect.stringMatching(/POST \/graphql\): answer\/data\/repositoryOwner\/projectV2\/id: Cannot return null for non-nullable field ProjectV2.id.$/),
      expect.stringMatching(/POST \/graphql\): query: Cannot query field "colour" on type "User".$/),
    ]);
  });
});
