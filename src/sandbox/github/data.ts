import type { GhIssue, GhLabel, GhRepo, GhUser, GithubState } from './state.js';
import { commit, type GitStore } from './git.js';

/** Sample GitHub world: user sbx-octocat, two friends, org sbx-org, three repositories. */

const user = (login: string, id: number, name: string, extra: Partial<GhUser> = {}): GhUser => ({
  login,
  id,
  node_id: 'U_kgDO' + Buffer.from(`sbx${id}`).toString('base64url'),
  type: 'User',
  name,
  email: `${login.replace(/^sbx-/, '')}@sbx.example`,
  company: null,
  blog: '',
  location: null,
  bio: null,
  twitter_username: null,
  created_at: '2020-04-01T12:00:00Z',
  updated_at: '2025-03-01T12:00:00Z',
  ...extra,
});

export const USERS: Record<string, GhUser> = {
  'sbx-octocat': user('sbx-octocat', 1001, 'Sandbox Octocat', { company: '@sbx-org', location: 'San Francisco', bio: 'Sample user of the Switchboard sandbox.', blog: 'https://octocat.sbx.example' }),
  'sbx-hubot': user('sbx-hubot', 1002, 'Hubot', { location: 'The cloud' }),
  'sbx-monalisa': user('sbx-monalisa', 1003, 'Mona Lisa', { company: '@sbx-org', location: 'Paris' }),
  'sbx-org': user('sbx-org', 2001, 'Sandbox Org', { type: 'Organization', node_id: 'O_kgDOsbx2001', email: 'hello@sbx-org.example', blog: 'https://sbx-org.example' }),
};

export const ORGS: GithubState['orgs'] = {
  'sbx-org': { description: 'A sample organization', members: { 'sbx-octocat': 'admin', 'sbx-monalisa': 'member' } },
};

const person = (login: string, date: string) => ({ name: USERS[login]!.name!, email: USERS[login]!.email!, date });

const LABELS: Array<[string, string, string]> = [
  ['bug', 'd73a4a', "Something isn't working"],
  ['documentation', '0075ca', 'Improvements or additions to documentation'],
  ['enhancement', 'a2eeef', 'New feature or request'],
  ['good first issue', '7057ff', 'Good for newcomers'],
  ['question', 'd876e3', 'Further information is requested'],
];

function labels(repoId: number): GhLabel[] {
  return LABELS.map(([name, color, description], i) => ({
    id: repoId * 10 + i,
    node_id: 'LA_kwDO' + Buffer.from(`${repoId}:${name}`).toString('base64url'),
    name,
    color,
    description,
    default: true,
  }));
}

/** A repository with no commits, labelled like a new GitHub repository. */
export function emptyRepo(id: number, owner: string, name: string, extra: Partial<GhRepo>): GhRepo {
  return {
    id,
    node_id: 'R_kgDO' + Buffer.from(`sbx${id}`).toString('base64url'),
    name,
    owner,
    private: false,
    description: null,
    homepage: null,
    language: null,
    topics: [],
    default_branch: 'main',
    created_at: '2025-01-10T09:00:00Z',
    updated_at: '2025-03-02T10:00:00Z',
    pushed_at: '2025-03-02T10:00:00Z',
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_discussions: false,
    archived: false,
    license: null,
    stargazers: [],
    subscribers: [owner],
    forks_count: 0,
    git: { commits: {}, blobs: {}, branches: {}, tags: {} },
    protected_branches: [],
    labels: labels(id),
    issues: [],
    comments: [],
    collaborators: {},
    invitations: [],
    releases: [],
    ...extra,
  };
}

function issue(repo: GhRepo, n: number, fields: Partial<GhIssue> & { title: string; user: string; created_at: string }): GhIssue {
  return {
    id: repo.id * 1000 + n,
    node_id: 'I_kwDO' + Buffer.from(`${repo.id}#${n}`).toString('base64url'),
    number: n,
    body: null,
    state: 'open',
    state_reason: null,
    labels: [],
    assignees: [],
    locked: false,
    updated_at: fields.created_at,
    closed_at: null,
    closed_by: null,
    ...fields,
  };
}

const README_V1 = '# hello-world\n\nMy first repository on the sandbox.\n';
const README_V2 = '# hello-world\n\nMy first repository on the sandbox.\n\n## Usage\n\n```sh\nnpm start\n```\n';
const INDEX_V1 = "export function greet() {\n  return 'Hello, world!';\n}\n\nconsole.log(greet());\n";
const INDEX_V2 = "export function greet(name = 'world') {\n  return `Hello, ${name}!`;\n}\n\nconsole.log(greet(process.argv[2]));\n";
const PACKAGE = '{\n  "name": "hello-world",\n  "version": "1.0.0",\n  "type": "module",\n  "scripts": { "start": "node src/index.js" }\n}\n';
const CI = 'name: CI\non:\n  push:\n    branches: [main]\n  pull_request:\n  workflow_dispatch:\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm start\n';

function helloWorld(): GhRepo {
  const repo = emptyRepo(500001, 'sbx-octocat', 'hello-world', {
    description: 'My first repository on the sandbox',
    homepage: 'https://hello-world.sbx.example',
    language: 'JavaScript',
    topics: ['sample', 'greeting'],
    license: { key: 'mit', name: 'MIT License', spdx_id: 'MIT' },
    stargazers: ['sbx-hubot', 'sbx-monalisa'],
    subscribers: ['sbx-octocat', 'sbx-hubot'],
    forks_count: 1,
    collaborators: { 'sbx-octocat': 'admin', 'sbx-hubot': 'write' },
    protected_branches: ['main'],
  });
  const g: GitStore = repo.git;
  const c1 = commit(g, { parents: [], changes: { 'README.md': README_V1 }, message: 'Initial commit', author: person('sbx-octocat', '2025-01-10T09:00:00Z'), authorLogin: 'sbx-octocat' });
  const c2 = commit(g, { parents: [c1.sha], changes: { 'src/index.js': INDEX_V1, 'package.json': PACKAGE }, message: 'Add greeting script', author: person('sbx-octocat', '2025-01-12T15:30:00Z'), authorLogin: 'sbx-octocat' });
  const c3 = commit(g, { parents: [c2.sha], changes: { '.github/workflows/ci.yml': CI }, message: 'Add CI workflow', author: person('sbx-hubot', '2025-02-03T11:00:00Z'), authorLogin: 'sbx-hubot' });
  const c4 = commit(g, { parents: [c3.sha], changes: { 'README.md': README_V2 }, message: 'Document usage', author: person('sbx-octocat', '2025-03-01T08:45:00Z'), authorLogin: 'sbx-octocat' });
  const c5 = commit(g, { parents: [c4.sha], changes: { 'src/index.js': INDEX_V2 }, message: 'Let the greeting take a name', author: person('sbx-monalisa', '2025-03-02T10:00:00Z'), authorLogin: 'sbx-monalisa' });
  const c6 = commit(g, { parents: [c4.sha], changes: { 'CONTRIBUTING.md': '# Contributing\n\nOpen an issue first, then a pull request.\n' }, message: 'Add contributing guide', author: person('sbx-hubot', '2025-03-02T09:00:00Z'), authorLogin: 'sbx-hubot' });
  g.branches = { main: c4.sha, 'feature/greeting': c5.sha, docs: c6.sha };
  g.tags = { 'v1.0.0': c4.sha };
  repo.issues = [
    issue(repo, 1, { title: 'Add a license', user: 'sbx-octocat', created_at: '2025-01-11T10:00:00Z', state: 'closed', state_reason: 'completed', closed_at: '2025-01-12T16:00:00Z', closed_by: 'sbx-octocat', updated_at: '2025-01-12T16:00:00Z', labels: ['documentation'], body: 'We should pick MIT.' }),
    issue(repo, 2, {
      title: 'Let the greeting take a name',
      user: 'sbx-monalisa',
      created_at: '2025-03-02T10:05:00Z',
      body: 'Adds an optional name argument.\n\nCloses #3',
      labels: ['enhancement'],
      pull: { head: 'feature/greeting', base: 'main', draft: false, merged_at: null, merged_by: null, merge_commit_sha: null, head_sha: null, requested_reviewers: ['sbx-hubot'], reviews: [], maintainer_can_modify: true },
    }),
    issue(repo, 3, { title: 'Greeting is not localized', user: 'sbx-hubot', created_at: '2025-02-20T14:00:00Z', updated_at: '2025-02-21T09:00:00Z', labels: ['enhancement', 'good first issue'], assignees: ['sbx-octocat'], body: 'The greeting is always in English.' }),
    issue(repo, 4, { title: 'Crash when name is empty', user: 'sbx-monalisa', created_at: '2025-03-03T08:00:00Z', labels: ['bug'], body: '`node src/index.js ""` prints `Hello, !`.' }),
    issue(repo, 5, { title: 'How do I run it locally?', user: 'sbx-hubot', created_at: '2025-03-04T12:00:00Z', labels: ['question'] }),
  ];
  repo.comments = [
    { id: 9000001, node_id: 'IC_kwDOsbx9000001', issue_number: 3, body: 'Spanish and French first?', user: 'sbx-hubot', created_at: '2025-02-20T15:00:00Z', updated_at: '2025-02-20T15:00:00Z' },
    { id: 9000002, node_id: 'IC_kwDOsbx9000002', issue_number: 3, body: 'Sounds good, I will take it.', user: 'sbx-octocat', created_at: '2025-02-21T09:00:00Z', updated_at: '2025-02-21T09:00:00Z' },
  ];
  repo.releases = [
    { id: 7000002, node_id: 'RE_kwDOsbx7000002', tag_name: 'v1.1.0-beta.1', target_commitish: 'feature/greeting', name: 'v1.1.0 beta 1', body: 'Greeting takes a name.', draft: false, prerelease: true, author: 'sbx-octocat', created_at: '2025-03-02T11:00:00Z', published_at: '2025-03-02T11:05:00Z' },
    { id: 7000001, node_id: 'RE_kwDOsbx7000001', tag_name: 'v1.0.0', target_commitish: 'main', name: 'v1.0.0', body: 'First release.', draft: false, prerelease: false, author: 'sbx-octocat', created_at: '2025-03-01T09:00:00Z', published_at: '2025-03-01T09:10:00Z' },
  ];
  return repo;
}

function privateNotes(): GhRepo {
  const repo = emptyRepo(500002, 'sbx-octocat', 'private-notes', { private: true, description: 'Private scratchpad', has_issues: false, has_wiki: false, collaborators: { 'sbx-octocat': 'admin' } });
  const c = commit(repo.git, { parents: [], changes: { 'README.md': '# Notes\n\nNothing to see here.\n', 'todo.md': '- [ ] renew domain\n' }, message: 'Initial commit', author: person('sbx-octocat', '2025-02-01T20:00:00Z'), authorLogin: 'sbx-octocat' });
  repo.git.branches = { main: c.sha };
  return repo;
}

function platform(): GhRepo {
  const repo = emptyRepo(500003, 'sbx-org', 'platform', {
    description: 'Shared platform services',
    language: 'TypeScript',
    topics: ['platform'],
    private: true,
    collaborators: { 'sbx-octocat': 'admin', 'sbx-monalisa': 'write' },
  });
  const c = commit(repo.git, { parents: [], changes: { 'README.md': '# platform\n\nShared services for sbx-org.\n', 'infra/main.tf': 'terraform {\n  required_version = ">= 1.6"\n}\n' }, message: 'Bootstrap platform repo', author: person('sbx-monalisa', '2025-02-10T10:00:00Z'), authorLogin: 'sbx-monalisa' });
  repo.git.branches = { main: c.sha };
  repo.issues = [issue(repo, 1, { title: 'Set up staging environment', user: 'sbx-monalisa', created_at: '2025-02-11T10:00:00Z', assignees: ['sbx-octocat'], labels: ['enhancement'] })];
  return repo;
}

export function seedRepos(): GhRepo[] {
  return [helloWorld(), privateNotes(), platform()];
}
