import * as z from 'zod/v4';

/**
 * The shapes of GitHub event payloads, as webhooks.ts (repoShape, issueShape, pullShape, releaseShape) and the kinds'
 * renders produce them: every object closed, every value GitHub may leave out nullable.
 */

export const text = (what: string) => z.string().nullable().describe(what);
export const time = (what: string) => z.iso.datetime({ offset: true }).nullable().describe(what);
export const int = (what: string) => z.number().int().nullable().describe(what);
export const url = (what: string) => z.string().nullable().describe(what);
export const actor = (who: string) => z.string().nullable().describe(`${who} (GitHub login)`);
const logins = (who: string) => z.array(z.string()).describe(`${who} (GitHub logins)`);
const body = (what: string) => z.string().nullable().describe(`${what}, Markdown, cut at 1,000 characters (html_url has the rest)`);

export const repositorySchema = z.strictObject({
  id: int('Repository id'),
  full_name: text('"owner/name"'),
  html_url: url('Repository page'),
  private: z.boolean().nullable(),
  fork: z.boolean().nullable().describe('Whether the repository is itself a fork'),
  description: text('Repository description, cut at 300 characters'),
  owner: actor('Owner'),
  default_branch: text('Default branch name'),
  created_at: time('When the repository was created'),
});

export const issueSchema = z.strictObject({
  number: int('Issue number'),
  title: text('Issue title'),
  state: z.enum(['open', 'closed']).nullable(),
  state_reason: text('Why it was closed or reopened (completed, not_planned, reopened...)'),
  html_url: url('Issue page'),
  user: actor('Author'),
  labels: z.array(z.string()).describe('Label names'),
  assignees: logins('Assignees'),
  is_pull_request: z.boolean().describe('Whether this issue is the conversation of a pull request'),
  created_at: time('When it was opened'),
  updated_at: time('When it last changed'),
  closed_at: time('When it was closed; null while open'),
  body: body('Issue body'),
});

export const pullRequestSchema = z.strictObject({
  number: int('Pull request number'),
  title: text('Pull request title'),
  state: z.enum(['open', 'closed']).nullable(),
  draft: z.boolean(),
  merged: z.boolean(),
  html_url: url('Pull request page'),
  user: actor('Author'),
  head: z.strictObject({ ref: text('Branch the changes come from'), sha: text('Commit at the head of that branch') }),
  base: z.strictObject({ ref: text('Branch the changes go into') }),
  labels: z.array(z.string()).describe('Label names'),
  requested_reviewers: logins('People asked to review'),
  created_at: time('When it was opened'),
  updated_at: time('When it last changed'),
  closed_at: time('When it was closed; null while open'),
  merged_at: time('When it was merged; null unless merged'),
  body: body('Pull request description'),
});

export const releaseSchema = z.strictObject({
  id: int('Release id'),
  tag_name: text('Tag the release points at'),
  name: text('Release title'),
  html_url: url('Release page'),
  draft: z.boolean(),
  prerelease: z.boolean(),
  author: actor('Who published it'),
  created_at: time('When its commit was made'),
  published_at: time('When it was published'),
  body: body('Release notes'),
});

/** The fields every GitHub webhook kind's event carries before its own (triggers.define.ts toEvent). */
export const envelopeShape = {
  delivery_id: text("GitHub's delivery id (X-GitHub-Delivery); null for a polled event"),
  event: text('GitHub webhook event name (X-GitHub-Event), e.g. "issues"; null for a polled event'),
  polled: z.literal(true).optional().describe('Present (true) when the event was found by polling instead of a webhook'),
  action: text('The webhook action, e.g. "opened"; null for events without one (push, create, fork)'),
  repository: text('Repository as "owner/name"; null for organization-wide events'),
  organization: text('Organization login; null outside an organization'),
  sender: actor('Who caused the event'),
};
