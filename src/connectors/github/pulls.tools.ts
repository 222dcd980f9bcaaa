import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Tool } from '../../tool.js';
import { ProviderError } from '../../errors.js';
import { withFact } from './calls.js';
import { githubPage, repoFields, repoPath } from './common.js';
import { github } from './connector.js';
import { findOrAddItem, optionNamed, parseProjectUrl, selectField, setOption, type ProjectRef } from './projects.js';

/** Pull requests: create, reviewers and reviews, and the Projects v2 status of an issue or pull request. */

interface GhPull {
  number: number;
  html_url: string;
  state: string;
  draft?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string };
}

const createPullRequest = github.tool({
  name: 'create_pull_request',
  title: 'Create pull request',
  description:
    'Open a pull request from head into base, with a title or from an issue; returns its number, html_url and head sha.',
  input: z
    .object({
      ...repoFields,
      head: z.string().min(1).describe('Branch with changes (user:branch for a fork)'),
      base: z.string().min(1).describe('Target branch'),
      title: z.string().optional().describe('Unless issue'),
      issue: z.number().int().optional().describe('Issue number to convert'),
      body: z.string().optional().describe('Description'),
      draft: z.boolean().optional().describe('Draft'),
      maintainer_can_modify: z.boolean().optional().describe('Maintainers may push'),
    })
    .strict(),
  output: z.object({ number: z.number(), html_url: z.string(), state: z.string(), draft: z.boolean(), head_sha: z.string() }),
  effect: 'write',
  async run({ owner, repo, ...fields }, { api }) {
    if (fields.title === undefined && fields.issue === undefined) throw new InputError('Give "title" (or "issue", the number of an issue to turn into the pull request).', 'title');
    if (fields.title !== undefined && fields.issue !== undefined) throw new InputError('Give "title" or "issue", not both: the issue supplies the title.', 'issue');
    const base = repoPath(owner, repo);
    let pr: GhPull;
    try {
      pr = await api.post<GhPull>(`${base}/pulls`, fields);
    } catch (error) {
      if (!(error instanceof ProviderError) || error.status !== 422 || !/already exists/i.test(error.providerMessage ?? '')) throw error;
      const detailed = error;
      const head = fields.head.includes(':') ? fields.head : `${owner}:${fields.head}`;
      const open = await api.get<GhPull[]>(`${base}/pulls`, { head, base: fields.base, state: 'open' }).catch(() => []);
      throw open[0] ? withFact(detailed, `(#${open[0].number}: ${open[0].html_url})`) : detailed;
    }
    return { number: pr.number, html_url: pr.html_url, state: pr.state, draft: pr.draft ?? false, head_sha: pr.head.sha };
  },
});

interface GhReview {
  user: { login: string } | null;
  state: string;
  submitted_at?: string | null;
}

const getReviewers = github.tool({
  name: 'get_reviewers',
  title: 'Get reviewers',
  description:
    'Requested reviewers (users, teams) of a pull request and its submitted reviews with their state, oldest first.',
  input: z.object({ ...repoFields, pull_number: z.number().int().describe('Pull request number') }).strict(),
  output: z.object({
    requested_users: z.array(z.string()),
    requested_teams: z.array(z.string()),
    reviews: z.array(z.object({ login: z.string().nullable(), state: z.string(), submitted_at: z.string().nullable() })),
  }),
  effect: 'read',
  async run({ owner, repo, pull_number }, { api }) {
    const path = `${repoPath(owner, repo)}/pulls/${pull_number}`;
    const readReviews = async () => {
      const all: GhReview[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 5; pages++) {
        const page = await githubPage<GhReview>(api, `${path}/reviews`, { limit: 100, cursor });
        all.push(...page.items);
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      return all;
    };
    const [requested, reviews] = await Promise.all([
      api.get<{ users: Array<{ login: string }>; teams: Array<{ slug: string }> }>(`${path}/requested_reviewers`),
      readReviews(),
    ]);
    return {
      requested_users: requested.users.map((u) => u.login),
      requested_teams: requested.teams.map((t) => t.slug),
      // A PENDING review is an unsubmitted draft that only its author can see.
      reviews: reviews.filter((r) => r.state !== 'PENDING').map((r) => ({ login: r.user?.login ?? null, state: r.state, submitted_at: r.submitted_at ?? null })),
    };
  },
});

const updateProjectItemStatus = github.tool({
  name: 'update_project_item_status',
  title: 'Set project (v2) item status',
  description:
    'Set the Status of an issue or PR in a Project (v2) by option name, adding it if needed. ' +
    'Give project_url or owner + project_number, and item_url or item_id.',
  input: z
    .object({
      project_url: z.string().optional().describe('e.g. https://github.com/orgs/ORG/projects/5'),
      owner: z.string().optional().describe('Project owner login'),
      project_number: z.number().int().optional().describe('With owner'),
      item_url: z.string().optional().describe('Issue or PR URL'),
      item_id: z.string().optional().describe('PVTI_... or issue/PR node id'),
      status: z.string().min(1).describe('Option name, e.g. In Progress'),
      field_name: z.string().optional().describe('Default Status'),
    })
    .strict(),
  output: z.object({ project_id: z.string(), item_id: z.string(), status: z.string(), previous_status: z.string().nullable(), added_to_project: z.boolean() }),
  effect: 'write',
  idempotent: true,
  async run(input, { api }) {
    const ref = projectRef(input);
    if ((input.item_url === undefined) === (input.item_id === undefined)) {
      throw new InputError('Give exactly one of "item_url" (issue or pull request URL) and "item_id".', 'item_url');
    }
    const fieldName = input.field_name ?? 'Status';
    const field = await selectField(api, ref, fieldName);
    const option = optionNamed(field, fieldName, input.status);
    const item = await findOrAddItem(api, field.projectId, fieldName, { url: input.item_url, id: input.item_id });
    await setOption(api, field.projectId, item.itemId, field.fieldId, option.id);
    return { project_id: field.projectId, item_id: item.itemId, status: option.name, previous_status: item.previous, added_to_project: item.added };
  },
});

function projectRef(input: { project_url?: string; owner?: string; project_number?: number }): ProjectRef {
  if (input.project_url !== undefined) {
    if (input.owner !== undefined || input.project_number !== undefined) throw new InputError('Give "project_url" or "owner" + "project_number", not both.', 'project_url');
    return parseProjectUrl(input.project_url);
  }
  if (input.owner === undefined || input.project_number === undefined) {
    throw new InputError('Give "project_url", or both "owner" and "project_number" (the number is in the project URL).', input.owner === undefined ? 'owner' : 'project_number');
  }
  return { owner: input.owner, number: input.project_number, field: 'owner' };
}

export const pullsTools: Tool[] = [createPullRequest, getReviewers, updateProjectItemStatus];
