import type { Routes } from '../server.js';
import type { GhIssue, GhRepo, GithubState } from './state.js';
import { GqlError, runGraphql, type GqlObject } from './graphql.js';
import { roleOf } from './render.js';
import { isObject } from '../util.js';

/** Projects v2 for the GraphQL stand-in: one project per owner, a Status single-select field, items linking issues and pull requests. */

export interface ProjectField {
  id: string;
  name: string;
  dataType: 'TEXT' | 'SINGLE_SELECT';
  options?: Array<{ id: string; name: string; color: string }>;
}
export interface ProjectItem {
  id: string;
  /** `owner/name#number` of the linked issue or pull request. */
  content: string;
  /** Field id -> option id (single select) or text. */
  values: Record<string, string>;
}
export interface Project {
  id: string;
  number: number;
  owner: string;
  title: string;
  closed: boolean;
  fields: ProjectField[];
  items: ProjectItem[];
}
export interface ProjectsState {
  projects: Project[];
  seq: number;
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');

function project(owner: string, number: number, title: string, items: Array<[string, string | null]>): Project {
  const key = `${owner}/${number}`;
  const status: ProjectField = {
    id: `PVTSSF_lADO${b64(`${key}:status`)}`,
    name: 'Status',
    dataType: 'SINGLE_SELECT',
    options: [
      { id: 'f75ad846', name: 'Todo', color: 'GREEN' },
      { id: '47fc9ee4', name: 'In Progress', color: 'YELLOW' },
      { id: '98236657', name: 'Done', color: 'PURPLE' },
    ],
  };
  const title_: ProjectField = { id: `PVTF_lADO${b64(`${key}:title`)}`, name: 'Title', dataType: 'TEXT' };
  return {
    id: `PVT_kwDO${b64(key)}`,
    number,
    owner,
    title,
    closed: false,
    fields: [title_, status],
    items: items.map(([content, statusName], n) => ({
      id: `PVTI_lADO${b64(`${key}:${n + 1}`)}`,
      content,
      values: statusName ? { [status.id]: status.options!.find((o) => o.name === statusName)!.id } : {},
    })),
  };
}

const stores = new WeakMap<GithubState, ProjectsState>();

/** The projects of a sandbox state, seeded on first use. */
export function projectsOf(state: GithubState): ProjectsState {
  let s = stores.get(state);
  if (!s) {
    s = {
      seq: 100,
      projects: [
        project('sbx-org', 1, 'Roadmap', [['sbx-octocat/hello-world#3', 'In Progress'], ['sbx-org/platform#1', 'Todo']]),
        project('sbx-octocat', 1, 'Personal tasks', [['sbx-octocat/hello-world#4', 'Todo'], ['sbx-octocat/hello-world#2', null]]),
      ],
    };
    stores.set(state, s);
  }
  return s;
}

const pullNodeId = (repo: GhRepo, i: GhIssue) => 'PR_kwDO' + b64(`${repo.id}#${i.number}`);

/** POST /graphql, answering the Projects v2 queries and mutations (and repository/issue lookups). */
export function graphqlRoutes(state: GithubState): Routes {
  return { 'POST /graphql': (req) => ({ status: 200, body: runGraphql({ query: () => queryRoot(state), mutation: () => mutationRoot(state) }, req.body) }) };
}

function schema(state: GithubState) {
  const ps = projectsOf(state);
  const visible = (repo: GhRepo) => !repo.private || !!roleOf(state, repo, state.login);
  const findContent = (ref: string) => {
    const m = /^([^/]+)\/([^#]+)#(\d+)$/.exec(ref);
    const repo = m && state.repos.find((r) => r.owner === m[1] && r.name === m[2]);
    const issue = repo?.issues.find((i) => i.number === Number(m![3]));
    return repo && issue ? { repo, issue } : undefined;
  };
  const refOf = (repo: GhRepo, i: GhIssue) => `${repo.owner}/${repo.name}#${i.number}`;

  const optionValue = (p: Project, item: ProjectItem, f: ProjectField): GqlObject | null => {
    const v = item.values[f.id];
    if (v === undefined) return null;
    if (f.dataType === 'TEXT') return { __typename: 'ProjectV2ItemFieldTextValue', text: v, field: () => fieldNode(p, f) };
    const opt = f.options!.find((o) => o.id === v);
    return { __typename: 'ProjectV2ItemFieldSingleSelectValue', name: opt?.name ?? null, optionId: v, field: () => fieldNode(p, f) };
  };
  const fieldNode = (p: Project, f: ProjectField): GqlObject => ({
    __typename: f.dataType === 'SINGLE_SELECT' ? 'ProjectV2SingleSelectField' : 'ProjectV2Field',
    __implements: ['ProjectV2FieldCommon', 'ProjectV2FieldConfiguration', 'Node'],
    id: f.id,
    name: f.name,
    dataType: f.dataType,
    ...(f.options ? { options: f.options.map((o) => ({ __typename: 'ProjectV2SingleSelectFieldOption', id: o.id, name: o.name, color: o.color })) } : {}),
    project: () => projectNode(p),
  });
  const itemNode = (p: Project, item: ProjectItem): GqlObject => ({
    __typename: 'ProjectV2Item',
    __implements: ['Node'],
    id: item.id,
    type: findContent(item.content)?.issue.pull ? 'PULL_REQUEST' : 'ISSUE',
    isArchived: false,
    project: () => projectNode(p),
    content: () => {
      const c = findContent(item.content);
      return c ? contentNode(c.repo, c.issue) : null;
    },
    fieldValueByName: ({ name }: { name: string }) => {
      const f = p.fields.find((x) => x.name === name);
      return f ? optionValue(p, item, f) : null;
    },
  });
  const connection = (nodes: GqlObject[], first: unknown) => {
    const n = typeof first === 'number' ? first : 100;
    if (n < 1 || n > 100) throw new GqlError('INVALID_ARGUMENTS', `Requesting ${n} records on the connection exceeds the \`first\` limit of 100 records.`);
    return { __typename: 'Connection', totalCount: nodes.length, nodes: nodes.slice(0, n), pageInfo: { __typename: 'PageInfo', hasNextPage: nodes.length > n, endCursor: null } };
  };
  const projectNode = (p: Project): GqlObject => ({
    __typename: 'ProjectV2',
    __implements: ['Node'],
    id: p.id,
    number: p.number,
    title: p.title,
    closed: p.closed,
    url: `https://github.com/${state.orgs[p.owner] ? 'orgs' : 'users'}/${p.owner}/projects/${p.number}`,
    field: ({ name }: { name: string }) => {
      const f = p.fields.find((x) => x.name === name);
      return f ? fieldNode(p, f) : null;
    },
    fields: ({ first }: { first?: number }) => connection(p.fields.map((f) => fieldNode(p, f)), first),
    items: ({ first }: { first?: number }) => connection(p.items.map((i) => itemNode(p, i)), first),
  });
  const contentNode = (repo: GhRepo, i: GhIssue): GqlObject => ({
    __typename: i.pull ? 'PullRequest' : 'Issue',
    __implements: ['Node', 'Assignable', 'Closable', 'Comment', 'Labelable'],
    id: i.pull ? pullNodeId(repo, i) : i.node_id,
    number: i.number,
    title: i.title,
    state: i.pull?.merged_at ? 'MERGED' : i.state.toUpperCase(),
    url: `https://github.com/${repo.owner}/${repo.name}/${i.pull ? 'pull' : 'issues'}/${i.number}`,
    projectItems: ({ first }: { first?: number }) => {
      const ref = refOf(repo, i);
      return connection(ps.projects.flatMap((p) => p.items.filter((it) => it.content === ref).map((it) => itemNode(p, it))), first);
    },
  });
  const repoNode = (repo: GhRepo): GqlObject => {
    const byNumber = (kind: 'issue' | 'pull' | 'any') => ({ number }: { number: number }) => {
      const i = repo.issues.find((x) => x.number === number && (kind === 'any' || (kind === 'pull') === !!x.pull));
      const noun = kind === 'issue' ? 'an Issue' : kind === 'pull' ? 'a PullRequest' : 'an issue or pull request';
      if (!i) throw new GqlError('NOT_FOUND', `Could not resolve to ${noun} with the number of ${number}.`);
      return contentNode(repo, i);
    };
    return {
      __typename: 'Repository',
      __implements: ['Node'],
      id: repo.node_id,
      name: repo.name,
      nameWithOwner: `${repo.owner}/${repo.name}`,
      issue: byNumber('issue'),
      pullRequest: byNumber('pull'),
      issueOrPullRequest: byNumber('any'),
    };
  };
  const ownerNode = (login: string): GqlObject | null => {
    const u = state.users[login] ?? Object.values(state.users).find((x) => x.login.toLowerCase() === login.toLowerCase());
    if (!u) return null;
    const isOrg = u.type === 'Organization';
    return {
      __typename: isOrg ? 'Organization' : 'User',
      __implements: ['Node', 'RepositoryOwner', 'ProjectV2Owner', 'ProjectV2Recent'],
      id: u.node_id,
      login: u.login,
      projectV2: ({ number }: { number: number }) => {
        const p = ps.projects.find((x) => x.owner === u.login && x.number === number);
        if (!p) throw new GqlError('NOT_FOUND', `Could not resolve to a ProjectV2 with the number ${number}.`);
        return projectNode(p);
      },
      projectsV2: ({ first }: { first?: number }) => connection(ps.projects.filter((x) => x.owner === u.login).map(projectNode), first),
    };
  };
  const nodeById = (id: string): GqlObject | null => {
    for (const repo of state.repos.filter(visible)) {
      if (repo.node_id === id) return repoNode(repo);
      const i = repo.issues.find((x) => x.node_id === id || (x.pull && pullNodeId(repo, x) === id));
      if (i) return contentNode(repo, i);
    }
    for (const p of ps.projects) {
      if (p.id === id) return projectNode(p);
      const item = p.items.find((x) => x.id === id);
      if (item) return itemNode(p, item);
      const f = p.fields.find((x) => x.id === id);
      if (f) return fieldNode(p, f);
    }
    return null;
  };

  const query: GqlObject = {
    __typename: 'Query',
    viewer: () => ownerNode(state.login),
    repositoryOwner: ({ login }: { login: string }) => ownerNode(login),
    organization: ({ login }: { login: string }) => {
      const o = ownerNode(login);
      if (!o || o.__typename !== 'Organization') throw new GqlError('NOT_FOUND', `Could not resolve to an Organization with the login of '${login}'.`);
      return o;
    },
    user: ({ login }: { login: string }) => {
      const o = ownerNode(login);
      if (!o || o.__typename !== 'User') throw new GqlError('NOT_FOUND', `Could not resolve to a User with the login of '${login}'.`);
      return o;
    },
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = state.repos.find((r) => r.owner.toLowerCase() === owner.toLowerCase() && r.name.toLowerCase() === name.toLowerCase());
      if (!repo || !visible(repo)) throw new GqlError('NOT_FOUND', `Could not resolve to a Repository with the name '${owner}/${name}'.`);
      return repoNode(repo);
    },
    node: ({ id }: { id: string }) => {
      const n = nodeById(id);
      if (!n) throw new GqlError('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`);
      return n;
    },
  };
  return { ps, query, itemNode, refOf };
}

const queryRoot = (state: GithubState) => schema(state).query;

function mutationRoot(state: GithubState): GqlObject {
  const { ps, itemNode, refOf } = schema(state);
  const input = (args: Record<string, unknown>, required: string[]): Record<string, any> => {
    const i = args.input;
    if (!isObject(i)) throw new GqlError('INVALID_ARGUMENTS', "Argument 'input' on Field is required");
    const missing = required.filter((k) => i[k] === undefined || i[k] === null);
    if (missing.length) throw new GqlError('INVALID_ARGUMENTS', `Argument 'input' has an invalid value: missing required input field(s) ${missing.join(', ')}`);
    return i;
  };
  const projectById = (id: string) => {
    const p = ps.projects.find((x) => x.id === id);
    if (!p) throw new GqlError('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`);
    return p;
  };
  const noNode = (id: string) => new GqlError('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'`);

  return {
    __typename: 'Mutation',
    addProjectV2ItemById: (args: Record<string, unknown>) => {
      const { projectId, contentId } = input(args, ['projectId', 'contentId']);
      const p = projectById(projectId);
      const content = state.repos.flatMap((repo) => repo.issues.filter((i) => i.node_id === contentId || (i.pull && pullNodeId(repo, i) === contentId)).map((issue) => ({ repo, issue })))[0];
      if (!content) throw noNode(contentId);
      const ref = refOf(content.repo, content.issue);
      let item = p.items.find((x) => x.content === ref);
      if (!item) {
        item = { id: `PVTI_lADO${b64(`${p.owner}/${p.number}:${++ps.seq}`)}`, content: ref, values: {} };
        p.items.push(item);
      }
      return { __typename: 'AddProjectV2ItemByIdPayload', clientMutationId: args.clientMutationId ?? null, item: itemNode(p, item) };
    },
    updateProjectV2ItemFieldValue: (args: Record<string, unknown>) => {
      const i = input(args, ['projectId', 'itemId', 'fieldId', 'value']);
      const p = projectById(i.projectId);
      const item = p.items.find((x) => x.id === i.itemId);
      if (!item) throw noNode(i.itemId);
      const field = p.fields.find((x) => x.id === i.fieldId);
      if (!field) throw noNode(i.fieldId);
      const value = isObject(i.value) ? i.value : {};
      const keys = Object.keys(value).filter((k) => value[k] !== undefined && value[k] !== null);
      if (keys.length !== 1) throw new GqlError('INVALID_ARGUMENTS', 'The value must contain exactly one of: text, number, date, singleSelectOptionId, iterationId.');
      if (field.dataType === 'SINGLE_SELECT') {
        if (keys[0] !== 'singleSelectOptionId') throw new GqlError('UNPROCESSABLE', `Did not receive a single select option Id to update a field of type single_select`);
        if (!field.options!.some((o) => o.id === value.singleSelectOptionId)) throw new GqlError('UNPROCESSABLE', 'The single select option Id does not belong to the field');
        item.values[field.id] = String(value.singleSelectOptionId);
      } else {
        if (keys[0] !== 'text') throw new GqlError('UNPROCESSABLE', `Did not receive a text value to update a field of type text`);
        item.values[field.id] = String(value.text);
      }
      return { __typename: 'UpdateProjectV2ItemFieldValuePayload', clientMutationId: i.clientMutationId ?? null, projectV2Item: itemNode(p, item) };
    },
  };
}
