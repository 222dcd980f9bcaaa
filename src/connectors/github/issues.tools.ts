import * as z from 'zod/v4';
import { InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { cursorField, githubPage, limitField, repoFields, repoPath, segment } from './common.js';
import { github } from './connector.js';

/** Issues: create, comment, update, assignees, and the issue/pull-request search. */

interface GhIssue {
  number: number;
  title: string;
  state: string;
  state_reason?: string | null;
  html_url: string;
  repository_url?: string;
  user?: { login: string } | null;
  labels?: Array<{ name?: string } | string>;
  assignees?: Array<{ login: string }> | null;
  pull_request?: unknown;
  comments?: number;
  updated_at?: string;
}

const names = (labels: GhIssue['labels']) => (labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? '')));
const logins = (users: GhIssue['assignees']) => (users ?? []).map((u) => u.login);

const issueNumber = z.number().int().describe('Issue or PR number');

const issueOut = {
  number: z.number(),
  html_url: z.string(),
  state: z.string(),
  labels: z.array(z.string()),
  assignees: z.array(z.string()),
};
const issueResult = (i: GhIssue) => ({ number: i.number, html_url: i.html_url, state: i.state, labels: names(i.labels), assignees: logins(i.assignees) });

const createIssue = github.tool({
  name: 'create_issue',
  title: 'Create issue',
  description:
    'Open an issue in a repository. ' +
    'Without push access GitHub silently drops labels, assignees and milestone.',
  input: z
    .object({
      ...repoFields,
      title: z.string().min(1).describe('Title'),
      body: z.string().optional().describe('Markdown'),
      labels: z.array(z.string()).optional().describe('Label names'),
      assignees: z.array(z.string()).optional().describe('Logins (github_get_issue_assignees)'),
      milestone: z.number().int().optional().describe('Milestone number'),
    })
    .strict(),
  output: z.object(issueOut),
  effect: 'write',
  async run({ owner, repo, ...fields }, { api }) {
    const issue = await api.post<GhIssue>(`${repoPath(owner, repo)}/issues`, fields);
    return issueResult(issue);
  },
});

const createIssueComment = github.tool({
  name: 'create_issue_comment',
  title: 'Comment on issue or pull request',
  description:
    'Comment on an issue or pull request (its number as issue_number); returns the comment id and html_url.',
  input: z
    .object({
      ...repoFields,
      issue_number: issueNumber,
      body: z.string().min(1).describe('Markdown'),
    })
    .strict(),
  output: z.object({ id: z.number(), html_url: z.string(), created_at: z.string() }),
  effect: 'write',
  async run({ owner, repo, issue_number, body }, { api }) {
    const c = await api.post<{ id: number; html_url: string; created_at: string }>(`${repoPath(owner, repo)}/issues/${issue_number}/comments`, { body });
    return { id: c.id, html_url: c.html_url, created_at: c.created_at };
  },
});

const updateIssue = github.tool({
  name: 'update_issue',
  title: 'Update issue',
  description:
    'Edit an issue: title, body, state, milestone; labels and assignees REPLACE the lists. ' +
    'add_labels/remove_labels keep the others.',
  input: z
    .object({
      ...repoFields,
      issue_number: issueNumber,
      title: z.string().optional().describe('Title'),
      body: z.string().optional().describe('Body'),
      state: z.enum(['open', 'closed']).optional().describe('State'),
      state_reason: z.enum(['completed', 'not_planned', 'duplicate', 'reopened']).optional().describe('Why'),
      labels: z.array(z.string()).optional().describe('REPLACES all labels'),
      add_labels: z.array(z.string()).optional().describe('Add these'),
      remove_labels: z.array(z.string()).optional().describe('Remove these'),
      assignees: z.array(z.string()).optional().describe('REPLACES all assignees'),
      milestone: z.number().int().nullable().optional().describe('Number; null clears'),
    })
    .strict(),
  output: z.object({ ...issueOut, state_reason: z.string().nullable() }),
  effect: 'write',
  idempotent: true,
  async run({ owner, repo, issue_number, add_labels, remove_labels, ...fields }, { api }) {
    if (fields.labels && (add_labels || remove_labels)) {
      throw new InputError('Give either "labels" (replaces the list) or "add_labels"/"remove_labels" (edits it), not both.', add_labels ? 'add_labels' : 'remove_labels');
    }
    const path = `${repoPath(owner, repo)}/issues/${issue_number}`;
    const patch: Record<string, unknown> = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    if (!Object.keys(patch).length && !add_labels && !remove_labels) {
      throw new InputError('Nothing to update: give at least one of title, body, state, state_reason, labels, add_labels, remove_labels, assignees, milestone.');
    }
    // GitHub's own add and remove endpoints, so a label someone else sets meanwhile is kept (a PATCH would replace the list).
    if (add_labels?.length) await api.post(`${path}/labels`, { labels: add_labels });
    for (const name of remove_labels ?? []) await removeLabel(api, path, name);
    const issue = Object.keys(patch).length ? await api.patch<GhIssue>(path, patch) : await api.get<GhIssue>(path);
    return { ...issueResult(issue), state_reason: issue.state_reason ?? null };
  },
});

/** Removes one label; one that is not on the issue (GitHub: 404 "Label does not exist") is already where it was asked to be. */
async function removeLabel(api: Api, issuePath: string, name: string): Promise<void> {
  if (name === '.' || name === '..') {
    throw new InputError(`"remove_labels": a label named ${JSON.stringify(name)} cannot be removed through GitHub's REST path; set the whole list with "labels" instead.`, 'remove_labels');
  }
  try {
    await api.delete(`${issuePath}/labels/${encodeURIComponent(name)}`);
  } catch (error) {
    if (error instanceof ProviderError && error.status === 404 && /label does not exist/i.test(error.providerMessage ?? '')) return;
    throw error;
  }
}

const getIssueAssignees = github.tool({
  name: 'get_issue_assignees',
  title: 'Get issue assignees',
  description:
    "An issue's assignees (issue_number), whether username is assignable, or else the repo's assignable users. " +
    'Gives valid logins.',
  input: z
    .object({
      ...repoFields,
      issue_number: z.number().int().optional().describe("This issue's assignees"),
      username: z.string().min(1).optional().describe('Is this login assignable'),
      limit: limitField(100, 30),
      cursor: cursorField,
    })
    .strict(),
  output: z.object({
    assignees: z.array(z.string()).optional(),
    assignable: z.boolean().optional(),
    assignable_users: z.array(z.string()).optional(),
    next_cursor: z.string().nullable().optional(),
  }),
  effect: 'read',
  async run({ owner, repo, issue_number, username, limit, cursor }, { api }) {
    const base = repoPath(owner, repo);
    const out: { assignees?: string[]; assignable?: boolean; assignable_users?: string[]; next_cursor?: string | null } = {};
    if (issue_number !== undefined) out.assignees = logins((await api.get<GhIssue>(`${base}/issues/${issue_number}`)).assignees);
    if (username !== undefined) {
      const res = await api.request({ method: 'GET', endpoint: `${base}/assignees/${segment(username, 'username')}`, acceptStatus: [404] });
      // A 404 also means "no such repository": tell the two apart before answering false.
      if (res.status === 404) await api.get(base);
      out.assignable = res.status !== 404;
    }
    if (issue_number === undefined && username === undefined) {
      const page = await githubPage<{ login: string }>(api, `${base}/assignees`, { limit: limit ?? 30, cursor });
      out.assignable_users = page.items.map((u) => u.login);
      out.next_cursor = page.next_cursor;
    }
    return out;
  },
});

const search = github.tool({
  name: 'search_issues_and_pull_requests',
  title: 'Search issues and pull requests',
  description:
    'Search issues and pull requests with GitHub query syntax; returns items with is_pull_request. ' +
    'Search allows 30 requests a minute.',
  input: z
    .object({
      q: z.string().min(1).describe('e.g. repo:o/r is:pr is:open label:bug author:x created:>=2025-01-01'),
      sort: z.enum(['comments', 'reactions', 'interactions', 'created', 'updated']).optional().describe('Default best match'),
      order: z.enum(['asc', 'desc']).optional().describe('Default desc'),
      limit: limitField(100, 30),
      cursor: cursorField,
    })
    .strict(),
  output: z.object({
    total_count: z.number(),
    items: z.array(
      z.object({
        repository: z.string(),
        number: z.number(),
        title: z.string(),
        state: z.string(),
        is_pull_request: z.boolean(),
        html_url: z.string(),
        user: z.string().optional(),
        labels: z.array(z.string()),
        updated_at: z.string().optional(),
      }),
    ),
    next_cursor: z.string().nullable(),
  }),
  effect: 'read',
  records: 'items',
  async run({ q, sort, order, limit, cursor }, { api }) {
    const page = await githubPage<GhIssue>(api, '/search/issues', { limit: limit ?? 30, cursor, itemsKey: 'items', query: { q, sort, order } });
    return {
      total_count: page.total_count ?? page.items.length,
      items: page.items.map((i) => ({
        repository: (i.repository_url ?? '').split('/repos/')[1] ?? '',
        number: i.number,
        title: i.title,
        state: i.state,
        is_pull_request: i.pull_request !== undefined,
        html_url: i.html_url,
        user: i.user?.login,
        labels: names(i.labels),
        updated_at: i.updated_at,
      })),
      next_cursor: page.next_cursor,
    };
  },
});

export const issuesTools: Tool[] = [createIssue, createIssueComment, updateIssue, getIssueAssignees, search];
