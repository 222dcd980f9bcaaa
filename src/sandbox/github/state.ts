import type { GitStore } from './git.js';

/** The GitHub stand-in's state: what it holds, and the token it accepts; the seed is in data.ts, the routes read and change it. */

export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';

export interface GhUser {
  login: string;
  id: number;
  node_id: string;
  type: 'User' | 'Organization';
  name: string | null;
  email: string | null;
  company: string | null;
  blog: string;
  location: string | null;
  bio: string | null;
  twitter_username: string | null;
  created_at: string;
  updated_at: string;
}
export interface GhLabel {
  id: number;
  node_id: string;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}
export interface GhComment {
  id: number;
  node_id: string;
  issue_number: number;
  body: string;
  user: string;
  created_at: string;
  updated_at: string;
}
export interface GhReview {
  id: number;
  node_id: string;
  user: string;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  submitted_at: string;
  commit_id: string;
}
export interface GhPull {
  head: string;
  base: string;
  draft: boolean;
  merged_at: string | null;
  merged_by: string | null;
  merge_commit_sha: string | null;
  /** The head sha when the pull request was closed or merged (its branch may be gone). */
  head_sha: string | null;
  requested_reviewers: string[];
  reviews: GhReview[];
  maintainer_can_modify: boolean;
}
/** Issues and pull requests share one numbering; a pull request is an issue with `pull`. */
export interface GhIssue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  user: string;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: string[];
  assignees: string[];
  locked: boolean;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: string | null;
  pull?: GhPull;
}
export interface GhInvitation {
  id: number;
  invitee: string;
  inviter: string;
  permissions: string;
  created_at: string;
}
export interface GhRelease {
  id: number;
  node_id: string;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  author: string;
  created_at: string;
  published_at: string | null;
}
export interface GhRepo {
  id: number;
  node_id: string;
  name: string;
  owner: string;
  private: boolean;
  description: string | null;
  homepage: string | null;
  language: string | null;
  topics: string[];
  default_branch: string;
  created_at: string;
  updated_at: string;
  pushed_at: string;
  has_issues: boolean;
  has_projects: boolean;
  has_wiki: boolean;
  has_discussions: boolean;
  archived: boolean;
  license: { key: string; name: string; spdx_id: string } | null;
  stargazers: string[];
  subscribers: string[];
  forks_count: number;
  git: GitStore;
  protected_branches: string[];
  labels: GhLabel[];
  issues: GhIssue[];
  comments: GhComment[];
  collaborators: Record<string, RepoRole>;
  invitations: GhInvitation[];
  releases: GhRelease[];
}
export interface RateBucket {
  limit: number;
  used: number;
  /** Epoch seconds. */
  reset: number;
}
export interface GithubState {
  /** Tokens this sandbox accepts; all act as `login`. */
  tokens: Set<string>;
  /** Sent as x-oauth-scopes. */
  scopes: string[];
  login: string;
  users: Record<string, GhUser>;
  orgs: Record<string, { description: string; members: Record<string, 'admin' | 'member'> }>;
  repos: GhRepo[];
  rateLimits: Record<'core' | 'search' | 'graphql' | 'unauthenticated', RateBucket>;
  seq: number;
  /** Whether changes made through the API send webhook deliveries (tests that deliver by hand turn it off). */
  webhooksOnChange: boolean;
}

export const GITHUB_SAMPLE_TOKEN = 'sbx-github-token-0001';
