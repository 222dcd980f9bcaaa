import * as z from 'zod/v4';
import { pollList } from './polled.js';
import { branchOf, define, lower, polledEvent, repoOf, repoPath, who, type Cfg } from './triggers.define.js';
import { actor, int, releaseSchema, repositorySchema, text, time, url } from './payloads.js';
import { clip, line, login, releaseShape, repoShape, type GithubPayload } from './webhooks.js';

/** Repository, commit and branch, release and discussion kinds of the specification (6.2). */

/* ---------- Repository ---------- */

export const newRepository = define({
  name: 'new_repository',
  target: 'org_or_account',
  description:
    'Each new repository. With "org": instant, from an organization webhook (repository.created; needs an org owner). Without it, your personal account: ' +
    'GitHub has no account-wide webhook, so it is polled (GET /user/repos sorted by creation, conditional requests), an event within one poll interval (default 60 s).',
  render: (p) => ({ summary: `New repository ${p.repository?.full_name} created by ${who(p)}`, payload: { repo: repoShape(p.repository) }, at: p.repository?.created_at }),
  payload: { repo: repositorySchema.describe('The new repository') },
  poll: {
    what: (cfg) => (cfg.org ? `new repositories of ${cfg.org}` : "your account's new repositories"),
    run: (ctx, spec) => {
      const cfg = ctx.trigger.config as Cfg;
      const own = lower(ctx.account.identity);
      return pollList(ctx, {
        endpoint: cfg.org ? `/orgs/${encodeURIComponent(cfg.org)}/repos?sort=created&direction=desc&per_page=30` : '/user/repos?affiliation=owner&sort=created&direction=desc&per_page=30',
        items: (b) => (Array.isArray(b) ? b : []),
        key: (r) => `repo:${r.id}`,
        time: (r) => r.created_at,
        keep: (r) => !!cfg.org || !own || lower(r.owner?.login) === own,
        event: (r) => polledEvent(spec, { action: 'created', repository: r, sender: r.owner }, `repo:${r.id}`),
      });
    },
  },
});

export const newFork = define({
  name: 'new_fork',
  description: 'Each new fork of a repository (or of any repository of an organization), instantly from a webhook (fork event).',
  render: (p) => ({ summary: `${p.repository?.full_name} forked to ${p.forkee?.full_name} by ${who(p)}`, payload: { fork: repoShape(p.forkee) }, at: p.forkee?.created_at }),
  payload: { fork: repositorySchema.describe('The new fork') },
});

export const newStar = define({
  name: 'new_star',
  description: 'Each new star on a repository, instantly from a webhook (star.created; the legacy watch.started duplicate is ignored).',
  render: (p) => ({
    summary: `${p.repository?.full_name} starred by ${who(p)}${p.repository?.stargazers_count ? ` (${p.repository.stargazers_count} stars)` : ''}`,
    payload: { starred_at: p.starred_at ?? null, stargazers_count: p.repository?.stargazers_count ?? null },
    at: p.starred_at,
  }),
  payload: { starred_at: time('When the star was given'), stargazers_count: int('Stars the repository has now') },
});

export const newTag = define({
  name: 'new_tag',
  description: 'Each new tag, instantly from a webhook (create event with ref_type tag). GitHub sends none when more than three tags are pushed at once.',
  render: (p) => ({ summary: `${repoOf(p)}: tag ${p.ref} created by ${who(p)}`, payload: { ref: p.ref ?? null, ref_type: 'tag' } }),
  payload: { ref: text('Tag name'), ref_type: z.literal('tag') },
});

/* ---------- Commits and branches ---------- */

const branchFilter = { branch: z.string().min(1).optional().describe('Only pushes to this branch (name without refs/heads/)') };
const onBranch = (p: GithubPayload, cfg: Cfg) => !cfg.branch || branchOf(p.ref) === cfg.branch;

export const newCommit = define({
  name: 'new_commit',
  description: 'Each new commit pushed (one event per distinct commit of a push, at most 2,048 per push), instantly from a webhook (push). Ref deletions carry none.',
  filters: branchFilter,
  accept: (_c, p, cfg) => onBranch(p, cfg),
  render: (p, c) => {
    const commit = (p.commits ?? []).find((x: any) => x?.id === c.detail) ?? {};
    const author = commit.author?.username ?? commit.author?.name ?? 'someone';
    return {
      summary: `${repoOf(p)}@${String(c.detail).slice(0, 7)}${branchOf(p.ref) ? ` on ${branchOf(p.ref)}` : ''} by ${author}: ${line(commit.message)}`,
      payload: {
        ref: p.ref ?? null,
        branch: branchOf(p.ref),
        pusher: p.pusher?.name ?? null,
        commit: {
          sha: commit.id ?? c.detail ?? null,
          message: clip(commit.message),
          url: commit.url ?? null,
          timestamp: commit.timestamp ?? null,
          author: { name: commit.author?.name ?? null, email: commit.author?.email ?? null, username: commit.author?.username ?? null },
          added: commit.added?.length ?? 0,
          removed: commit.removed?.length ?? 0,
          modified: commit.modified?.length ?? 0,
        },
      },
      at: commit.timestamp,
    };
  },
  payload: {
    ref: text('Full ref pushed to, e.g. "refs/heads/main"'),
    branch: text('Branch name; null for a tag'),
    pusher: text('Name of who pushed'),
    commit: z.strictObject({
      sha: text('Commit SHA'),
      message: text('Commit message, cut at 1,000 characters'),
      url: url('Commit page'),
      timestamp: time('Commit time'),
      author: z.strictObject({ name: text('Author name'), email: text('Author email'), username: text('Author GitHub login, when GitHub knows it') }),
      added: z.number().int().describe('Files added'),
      removed: z.number().int().describe('Files removed'),
      modified: z.number().int().describe('Files modified'),
    }),
  },
});

export const newPush = define({
  name: 'new_push',
  description: 'Each push to a repository (branches and tags), instantly from a webhook (push). Ref deletions only with include_deletions.',
  filters: { ...branchFilter, include_deletions: z.boolean().optional().describe('Also fire when a push deletes a branch or tag; default false') },
  accept: (c, p, cfg) => (c.detail !== 'deleted' || cfg.include_deletions === true) && onBranch(p, cfg),
  render: (p, c) => {
    const name = String(p.ref ?? '').replace(/^refs\/(heads|tags)\//, '');
    const n = Array.isArray(p.commits) ? p.commits.length : 0;
    const pusher = p.pusher?.name ?? who(p);
    const summary =
      c.detail === 'deleted'
        ? `${pusher} deleted ${name} in ${repoOf(p)}`
        : `${pusher} pushed ${n} commit${n === 1 ? '' : 's'} to ${repoOf(p)} ${name}${c.detail === 'forced' ? ' (forced)' : c.detail === 'created' ? ' (new)' : ''}${p.head_commit ? `: ${line(p.head_commit.message, 80)}` : ''}`;
    return {
      summary,
      payload: {
        ref: p.ref ?? null,
        ref_type: String(p.ref ?? '').startsWith('refs/tags/') ? 'tag' : 'branch',
        ref_name: name,
        before: p.before ?? null,
        after: p.after ?? null,
        created: !!p.created,
        deleted: !!p.deleted,
        forced: !!p.forced,
        compare: p.compare ?? null,
        commits: n,
        pusher,
        head_commit: p.head_commit ? { sha: p.head_commit.id ?? null, message: line(p.head_commit.message, 200), timestamp: p.head_commit.timestamp ?? null, url: p.head_commit.url ?? null } : null,
      },
      at: p.head_commit?.timestamp ?? p.repository?.pushed_at,
    };
  },
  payload: {
    ref: text('Full ref pushed to, e.g. "refs/heads/main" or "refs/tags/v1.0"'),
    ref_type: z.enum(['branch', 'tag']),
    ref_name: z.string().describe('Branch or tag name without refs/heads/ or refs/tags/'),
    before: text('SHA the ref pointed at before the push'),
    after: text('SHA the ref points at after the push'),
    created: z.boolean().describe('The push created the ref'),
    deleted: z.boolean().describe('The push deleted the ref'),
    forced: z.boolean().describe('The push was forced'),
    compare: url('Page comparing before and after'),
    commits: z.number().int().describe('Commits in the push'),
    pusher: z.string().describe('Name of who pushed'),
    head_commit: z
      .strictObject({ sha: text('Commit SHA'), message: z.string().describe('First line of the message'), timestamp: time('Commit time'), url: url('Commit page') })
      .nullable()
      .describe('The newest commit; null when the push deleted the ref'),
  },
});

export const newBranch = define({
  name: 'new_branch',
  description: 'Each new branch, instantly from a webhook (create event with ref_type branch).',
  render: (p) => ({ summary: `${repoOf(p)}: branch ${p.ref} created by ${who(p)}`, payload: { ref: p.ref ?? null, ref_type: 'branch', master_branch: p.master_branch ?? null } }),
  payload: { ref: text('Branch name'), ref_type: z.literal('branch'), master_branch: text("The repository's default branch") },
});

/* ---------- Other ---------- */

export const newRelease = define({
  name: 'new_release',
  description: 'Each published release (drafts fire when published), instantly from a webhook (release.published); "mode":"poll" polls the repository instead (no public URL needed).',
  filters: { include_prereleases: z.boolean().optional().describe('Fire for prereleases too; default true') },
  accept: (_c, p, cfg) => cfg.include_prereleases !== false || !p.release?.prerelease,
  render: (p) => ({
    summary: `${repoOf(p)} release ${p.release?.tag_name}${p.release?.prerelease ? ' (prerelease)' : ''} published by ${login(p.release?.author) ?? who(p)}${p.release?.name ? `: ${line(p.release.name)}` : ''}`,
    payload: { release: releaseShape(p.release) },
    at: p.release?.published_at,
  }),
  payload: { release: releaseSchema },
  poll: {
    what: (cfg) => `new releases of ${cfg.repo}`,
    run: (ctx, spec) => {
      const cfg = ctx.trigger.config as Cfg;
      return pollList(ctx, {
        endpoint: `${repoPath(cfg)}/releases?per_page=30`,
        items: (b) => (Array.isArray(b) ? b : []),
        key: (r) => `release:${r.id}`,
        time: (r) => r.published_at,
        keep: (r) => !r.draft && !!r.published_at && (cfg.include_prereleases !== false || !r.prerelease),
        event: (r) => polledEvent(spec, { action: 'published', release: r, repository: { full_name: cfg.repo }, sender: r.author }, `release:${r.id}`),
      });
    },
  },
});

export const newDiscussion = define({
  name: 'new_discussion',
  description: 'Each new discussion, instantly from a webhook (discussion.created).',
  filters: { category: z.string().min(1).optional().describe('Only discussions in this category (its name)') },
  accept: (_c, p, cfg) => !cfg.category || lower(p.discussion?.category?.name) === lower(cfg.category),
  render: (p) => {
    const d = p.discussion ?? {};
    return {
      summary: `${repoOf(p)} discussion #${d.number} opened by ${who(p)}: ${line(d.title)}`,
      payload: { discussion: { number: d.number ?? null, title: d.title ?? null, html_url: d.html_url ?? null, category: d.category?.name ?? null, user: login(d.user), state: d.state ?? null, created_at: d.created_at ?? null, body: clip(d.body) } },
      at: d.created_at,
    };
  },
  payload: {
    discussion: z.strictObject({
      number: int('Discussion number'),
      title: text('Discussion title'),
      html_url: url('Discussion page'),
      category: text('Category name'),
      user: actor('Author'),
      state: text('open, closed or locked'),
      created_at: time('When it was opened'),
      body: text('Discussion body, Markdown, cut at 1,000 characters'),
    }),
  },
});

export const newDiscussionComment = define({
  name: 'new_discussion_comment',
  description: 'Each new comment on a discussion, instantly from a webhook (discussion_comment.created).',
  render: (p) => {
    const d = p.discussion ?? {};
    const cm = p.comment ?? {};
    return {
      summary: `${who(p)} commented on ${repoOf(p)} discussion #${d.number}: ${line(d.title)}`,
      payload: {
        comment: { id: cm.id ?? null, html_url: cm.html_url ?? null, user: login(cm.user), body: clip(cm.body), parent_id: cm.parent_id ?? null, created_at: cm.created_at ?? null },
        discussion: { number: d.number ?? null, title: d.title ?? null, html_url: d.html_url ?? null },
      },
      at: cm.created_at,
    };
  },
  payload: {
    comment: z.strictObject({
      id: int('Comment id'),
      html_url: url('Comment page'),
      user: actor('Author'),
      body: text('Comment body, Markdown, cut at 1,000 characters'),
      parent_id: int('The comment this one answers; null for a top-level comment'),
      created_at: time('When it was written'),
    }),
    discussion: z.strictObject({ number: int('Discussion number'), title: text('Discussion title'), html_url: url('Discussion page') }),
  },
});
