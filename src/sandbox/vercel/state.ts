import type { SandboxRequest } from '../server.js';

/** The Vercel stand-in's state, the token it accepts, and the rules every route file shares: errors, whose scope a request sees, which plan applies. */

export type ReadyState = 'QUEUED' | 'INITIALIZING' | 'BUILDING' | 'READY' | 'ERROR' | 'CANCELED' | 'BLOCKED';

export interface VercelDeployment {
  uid: string;
  name: string;
  url: string;
  projectId: string;
  /** The user id or team id that owns it. */
  ownerId: string;
  createdAt: number;
  buildingAt: number | null;
  ready: number | null;
  readyState: ReadyState;
  target: 'production' | 'staging' | null;
  creatorUid: string;
  source: 'git' | 'cli' | 'api' | 'redeploy';
  aliases: string[];
  gitSource: Record<string, unknown> | null;
  meta: Record<string, string>;
  errorCode: string | null;
  errorMessage: string | null;
  canceledAt: number | null;
}
export interface VercelEnv {
  id: string;
  key: string;
  value: string;
  type: 'system' | 'secret' | 'encrypted' | 'plain' | 'sensitive';
  target: Array<'production' | 'preview' | 'development'>;
  gitBranch?: string;
  comment: string;
  configurationId: null;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  updatedBy: string | null;
}
export interface VercelProjectDomain {
  name: string;
  apexName: string;
  projectId: string;
  redirect: string | null;
  redirectStatusCode: number | null;
  gitBranch: string | null;
  customEnvironmentId: null;
  updatedAt: number;
  createdAt: number;
  verified: boolean;
  verification?: Array<{ type: string; domain: string; value: string; reason: string }>;
}
export interface VercelProject {
  id: string;
  name: string;
  accountId: string;
  framework: string | null;
  buildCommand: string | null;
  installCommand: string | null;
  outputDirectory: string | null;
  rootDirectory: string | null;
  nodeVersion: string;
  createdAt: number;
  updatedAt: number;
  link: { type: string; repo: string; org: string; repoId: number; productionBranch: string; [k: string]: unknown } | null;
  env: VercelEnv[];
  domains: VercelProjectDomain[];
}
export interface VercelDomain {
  id: string;
  name: string;
  ownerId: string;
  [key: string]: unknown;
}
export interface VercelMember {
  uid: string;
  username: string;
  name: string;
  email: string;
  role: string;
  confirmed: boolean;
  createdAt: number;
  [key: string]: unknown;
}
export interface VercelTeam {
  id: string;
  slug: string;
  name: string;
  avatar: string | null;
  createdAt: number;
  creatorId: string;
  members: VercelMember[];
  /** Teams are Pro unless told otherwise; account webhooks need Pro or Enterprise. */
  plan?: VercelPlan;
}
export type VercelPlan = 'hobby' | 'pro' | 'enterprise';
/** An account (or team) webhook: `secret` is shown only in the answer that creates it. */
export interface VercelWebhook {
  id: string;
  url: string;
  events: string[];
  ownerId: string;
  /** Only these projects' events; absent means every project of the owner. */
  projectIds?: string[];
  secret: string;
  createdAt: number;
  updatedAt: number;
}
/** One POST the sandbox made (or tried) to a webhook. */
export interface VercelWebhookDelivery {
  /** The envelope id (Vercel's payload `id`); a redelivery repeats it. */
  eventId: string;
  type: string;
  webhookId: string;
  url: string;
  /** The exact bytes sent, and their x-vercel-signature. */
  body: string;
  signature: string;
  status: number | null;
  error: string | null;
  at: number;
}
export interface VercelState {
  /** Bearer tokens this sandbox accepts; all act as `user`. */
  tokens: Set<string>;
  user: { id: string; email: string; name: string; username: string; defaultTeamId: string | null; [key: string]: unknown };
  teams: VercelTeam[];
  projects: VercelProject[];
  deployments: VercelDeployment[];
  domains: VercelDomain[];
  webhooks: VercelWebhook[];
  /** Every webhook delivery, oldest first. */
  deliveries: VercelWebhookDelivery[];
  /** Deliveries still in flight (see `vercelWebhooksIdle`). */
  pending: Set<Promise<unknown>>;
  /** `reset` in epoch seconds, as in the x-ratelimit-reset header. */
  rateLimit: { limit: number; remaining: number; reset: number };
  seq: number;
}

export const VERCEL_SAMPLE_TOKEN = 'sbx-vercel-token-0001';

export class VercelError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new VercelError(400, 'bad_request', `Invalid request: ${message}`);
export const notFound = (what: string) => new VercelError(404, 'not_found', `${what} not found`);

/** Whose resources a request sees: the user's own, or a team's with `?teamId=` (or `?slug=`). */
export function scopeOf(state: VercelState, req: SandboxRequest): { ownerId: string; slug: string; team?: VercelTeam } {
  const teamId = req.query.get('teamId');
  const slug = req.query.get('slug');
  if (!teamId && !slug) return { ownerId: state.user.id, slug: state.user.username };
  const team = state.teams.find((t) => (teamId ? t.id === teamId : t.slug === slug));
  if (!team || !team.members.some((m) => m.uid === state.user.id)) throw new VercelError(403, 'forbidden', 'Not authorized');
  return { ownerId: team.id, slug: team.slug, team };
}

/** The plan of a user id or team id. */
export function planOf(state: VercelState, ownerId: string): VercelPlan {
  const team = state.teams.find((t) => t.id === ownerId);
  if (team) return team.plan ?? 'pro';
  const billing = state.user.billing as { plan?: VercelPlan } | undefined;
  return billing?.plan ?? 'hobby';
}

/** The deployment's page in the Vercel dashboard. */
export function inspectorUrl(state: VercelState, d: VercelDeployment): string {
  const slug = state.teams.find((t) => t.id === d.ownerId)?.slug ?? state.user.username;
  return `https://vercel.com/${slug}/${d.name}/${d.uid.replace(/^dpl_/, '')}`;
}
