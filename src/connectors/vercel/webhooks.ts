import * as z from 'zod/v4';
import { InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { NewEvent, Trigger } from '../../store/types.js';
import type { SetupContext, SetupResult, TriggerKind, WebhookDelivery } from '../../contracts/triggers.js';
import { vercelWebhookIntake } from './webhook-intake.js';

/**
 * Vercel deployment triggers: started, completed, failed, canceled. Each trigger has its own webhook
 * URL (/webhooks/vercel/<triggerId>) and signing secret; Switchboard creates the webhook through
 * POST /v1/webhooks when the account may, else the user sets it up and gives its secret.
 */

type Outcome = 'started' | 'completed' | 'failed' | 'canceled';

/** Vercel event names, current and legacy (integration) ones, to what they mean for a deployment. */
export const VERCEL_EVENT_OUTCOMES: Record<string, Outcome> = {
  'deployment.created': 'started',
  deployment: 'started',
  'deployment.succeeded': 'completed',
  'deployment.ready': 'completed',
  'deployment-ready': 'completed',
  'deployment.error': 'failed',
  'deployment-error': 'failed',
  'deployment.canceled': 'canceled',
  'deployment-canceled': 'canceled',
};

/** What the webhook Switchboard creates listens to: the events of Vercel's account-webhook settings. */
const SUBSCRIBE: Record<Outcome, string[]> = {
  started: ['deployment.created'],
  completed: ['deployment.succeeded'],
  failed: ['deployment.error'],
  canceled: ['deployment.canceled'],
};

/** The names Vercel's dashboard shows for those events, for instructions to a person. */
const DASHBOARD_NAMES: Record<Outcome, string> = {
  started: 'Deployment Created',
  completed: 'Deployment Succeeded',
  failed: 'Deployment Error',
  canceled: 'Deployment Canceled',
};

const config = z
  .object({
    project: z.string().min(1).describe('Project id (prj_...) or name; other projects are ignored'),
    environment: z
      .enum(['production', 'preview'], { error: 'must be production or preview (Vercel never deploys to development, which is local only)' })
      .optional()
      .describe('Only deployments to this environment; default both'),
    secret: z
      .string()
      .min(8)
      .optional()
      .describe('Signing secret of a webhook you set up in Vercel yourself; only when Switchboard cannot create it (not shown again)'),
    manual: z
      .boolean()
      .optional()
      .describe('You will create the webhook in Vercel yourself and give its secret afterwards (switchboard triggers secret)'),
  })
  .strict();

type Config = z.output<typeof config>;

const text = (what: string) => z.string().nullable().describe(what);

function payloadOf(outcome: Outcome) {
  const names = Object.keys(VERCEL_EVENT_OUTCOMES).filter((name) => VERCEL_EVENT_OUTCOMES[name] === outcome) as [string, ...string[]];
  return z.strictObject({
    type: z.enum(names).describe("Vercel's event name (current or legacy)"),
    delivery_id: z.string().describe("Vercel's id of this delivery"),
    deployment_id: text('Deployment id (dpl_...)'),
    name: text('Project name'),
    url: text('Deployment URL (https://...)'),
    project_id: text('Project id (prj_...)'),
    target: text('production, or null for a preview deployment'),
    ref: text('Git branch deployed, when it came from Git'),
    sha: text('Git commit deployed, when it came from Git'),
    commit_message: text('Commit message, when it came from GitHub'),
    inspector_url: text("Deployment's page in the Vercel dashboard"),
    team_id: text('Team id; null for a personal account'),
  });
}

interface DeploymentPayload {
  deployment?: { id?: string; url?: string; name?: string; meta?: Record<string, string>; inspectorUrl?: string };
  project?: { id?: string };
  team?: { id?: string | null } | null;
  user?: { id?: string };
  links?: { deployment?: string; project?: string };
  target?: string | null;
  // Legacy integration payloads carry these at the top.
  deploymentId?: string;
  projectId?: string;
  url?: string;
  name?: string;
}

/** The events of one verified delivery for a trigger of this outcome; none when it is another outcome, project or environment. */
function match(outcome: Outcome, delivery: WebhookDelivery, cfg: Config): NewEvent[] {
  if (VERCEL_EVENT_OUTCOMES[delivery.event] !== outcome) return [];
  const envelope = delivery.payload as { createdAt?: number; payload?: DeploymentPayload };
  const p = envelope.payload ?? {};
  const deploymentId = p.deployment?.id ?? p.deploymentId;
  const projectId = p.project?.id ?? p.projectId;
  const name = p.deployment?.name ?? p.name;
  const wanted = cfg.project.trim();
  if (wanted !== projectId && wanted.toLowerCase() !== name?.toLowerCase()) return [];
  const environment = p.target ?? 'preview';
  if (cfg.environment && cfg.environment !== environment) return [];
  const host = p.deployment?.url ?? p.url;
  const url = host ? (/^https?:\/\//.test(host) ? host : `https://${host}`) : null;
  const meta = p.deployment?.meta ?? {};
  const ref = meta.githubCommitRef ?? meta.gitlabCommitRef ?? meta.bitbucketCommitRef ?? null;
  const sha = meta.githubCommitSha ?? meta.gitlabCommitSha ?? meta.bitbucketCommitSha ?? null;
  // Redeliveries repeat the payload id. A completion may come twice under two ids (deployment.succeeded
  // and deployment.ready, or a legacy deployment-ready): it is keyed by the deployment so it fires once.
  const dedupeKey = outcome === 'completed' && deploymentId ? `completed:${deploymentId}` : `${outcome}:${delivery.id}`;
  const occurred = typeof envelope.createdAt === 'number' ? new Date(envelope.createdAt) : new Date();
  const commit = ref ? ` from ${ref}${sha ? ` @ ${sha.slice(0, 7)}` : ''}` : '';
  return [
    {
      dedupeKey,
      occurredAt: Number.isNaN(occurred.getTime()) ? new Date().toISOString() : occurred.toISOString(),
      summary: `Deployment of ${name ?? projectId ?? 'a project'} to ${environment} ${outcome}${commit}${url ? `: ${url}` : ''}`,
      payload: {
        type: delivery.event,
        delivery_id: delivery.id,
        deployment_id: deploymentId ?? null,
        name: name ?? null,
        url,
        project_id: projectId ?? null,
        target: p.target ?? null,
        ref,
        sha,
        commit_message: meta.githubCommitMessage ?? null,
        inspector_url: p.links?.deployment ?? p.deployment?.inspectorUrl ?? null,
        team_id: p.team?.id ?? null,
      },
    },
  ];
}

function manualSteps(outcome: Outcome, cfg: Config, webhookUrl: string): string {
  return (
    `In Vercel, point a webhook whose signing secret is the one you gave at ${webhookUrl} ` +
    `(your integration's Webhook URL in the Integration Console, whose secret is its Client Secret; or Team Settings → Webhooks on Pro and Enterprise), ` +
    `with the event "${DASHBOARD_NAMES[outcome]}" (${SUBSCRIBE[outcome].join(', ')}) and the project ${cfg.project}.`
  );
}

const NO_PUBLIC_URL =
  'Vercel must reach Switchboard to deliver events, and this server has no public URL. Start it with --public-url https://your-host ' +
  '(or SWITCHBOARD_PUBLIC_URL; a tunnel to the HTTP listener works) and create the trigger again, so Switchboard creates the Vercel webhook itself; ' +
  'or set config.secret to the signing secret of a webhook you manage in Vercel (for an integration, its Client Secret) and point it at the webhook URL this answer then gives, or set config.manual to get the URL first and give the secret afterwards.';

function refusedMessage(error: ProviderError, webhookUrl: string): string {
  const why = `${error.status}${error.code ? ` ${error.code}` : ''}${error.providerMessage ? `: ${error.providerMessage}` : ''}`;
  return (
    `Vercel refused to create the webhook (${why}) for ${webhookUrl}: account webhooks need a Pro or Enterprise team and a token that can manage it ` +
    '(a team-scoped account: switchboard accounts add vercel). Either connect such an account and create the trigger again, ' +
    "or set config.secret to the signing secret of a webhook you manage in Vercel (for an integration, its Client Secret); the answer then says where to point it. Nothing was created."
  );
}

async function setup(outcome: Outcome, ctx: SetupContext): Promise<SetupResult> {
  const cfg = ctx.config as Config;
  const path = `/webhooks/vercel/${ctx.triggerId}`;
  const webhookUrl = ctx.publicUrl ? ctx.publicUrl.replace(/\/+$/, '') + path : undefined;
  const env = cfg.environment ? ` to ${cfg.environment}` : '';
  if (cfg.secret !== undefined) {
    // Kept encrypted with the trigger's secrets, never in its config, which triggers_list shows.
    const { secret, ...stored } = cfg;
    const where = webhookUrl ?? `<public URL of this server>${path}`;
    const note = webhookUrl ? '' : ' This server has no public URL yet: start it with --public-url so Vercel can reach it.';
    return {
      config: stored,
      secrets: { webhook: secret },
      providerRefs: { manual: true },
      next: `${manualSteps(outcome, cfg, where)}${note} Each ${outcome} deployment of ${cfg.project}${env} is then an event; deliveries with another signature are refused.`,
    };
  }
  if (cfg.manual) {
    // Vercel shows a dashboard webhook's secret only after its URL is entered, so the secret comes second.
    const { manual: _manual, ...stored } = cfg;
    const where = webhookUrl ?? `<public URL of this server>${path}`;
    return {
      config: stored,
      providerRefs: { manual: true },
      next:
        `${manualSteps(outcome, cfg, where).replace('whose signing secret is the one you gave ', '')} Then give Switchboard the secret Vercel shows: ` +
        `printf %s "$SECRET" | switchboard triggers secret ${ctx.triggerId} --secret-stdin. Until then deliveries are refused.`,
    };
  }
  if (!webhookUrl) throw new InputError(NO_PUBLIC_URL, 'config.secret');
  let hook: { id?: string; secret?: string };
  let project: { id: string; name: string };
  try {
    project = await findProject(ctx.api, cfg.project);
    hook = await ctx.api.post('/v1/webhooks', { url: webhookUrl, events: SUBSCRIBE[outcome], projectIds: [project.id] });
  } catch (error) {
    if (error instanceof ProviderError && (error.status === 402 || error.status === 403)) throw new InputError(refusedMessage(error, webhookUrl), 'config.secret');
    throw error;
  }
  if (!hook.id || !hook.secret) {
    if (hook.id) await removeWebhook(ctx.api, hook.id);
    throw new Error('Vercel created the webhook without returning its signing secret; it was removed again. Try again.');
  }
  return {
    secrets: { webhook: hook.secret },
    providerRefs: { webhookId: hook.id, projectId: project.id },
    next: `Created Vercel webhook ${hook.id} (${SUBSCRIBE[outcome].join(', ')}) for project ${project.name}, delivering to ${webhookUrl}. Each ${outcome} deployment${env} is an event within seconds.`,
  };
}

async function findProject(api: Api, ref: string): Promise<{ id: string; name: string }> {
  try {
    return await api.get<{ id: string; name: string }>(`/v9/projects/${encodeURIComponent(ref.trim())}`);
  } catch (error) {
    if (error instanceof ProviderError && error.status === 404) {
      throw new InputError(`No Vercel project "${ref}" in this account: check config.project (vercel_api_call GET /v9/projects lists them; a team's projects need an account connected to that team).`, 'config.project');
    }
    throw error;
  }
}

async function removeWebhook(api: Api, id: string): Promise<void> {
  // Already gone (deleted in Vercel's settings) is fine.
  await api.request({ method: 'DELETE', endpoint: `/v1/webhooks/${encodeURIComponent(id)}`, acceptStatus: [404] });
}

async function teardown({ trigger, api }: { trigger: Trigger; api: Api }): Promise<void> {
  const id = trigger.providerRefs.webhookId;
  if (typeof id === 'string' && id) await removeWebhook(api, id);
}

function deploymentKind(outcome: Outcome, description: string): TriggerKind {
  return {
    kind: `vercel.deployment_${outcome}`,
    connector: 'vercel',
    description,
    config,
    payload: payloadOf(outcome),
    webhook: { ...vercelWebhookIntake, match: (delivery, cfg) => match(outcome, delivery, cfg as Config) },
    provider: { setup: (ctx) => setup(outcome, ctx), teardown },
  };
}

export const vercelKinds: TriggerKind[] = [
  deploymentKind('started', 'Each new deployment of a Vercel project (deployment.created), by webhook.'),
  deploymentKind('completed', 'Each deployment of a Vercel project that built successfully (deployment.succeeded or .ready, once per deployment), by webhook.'),
  deploymentKind('failed', 'Each deployment of a Vercel project that failed (deployment.error), by webhook.'),
  deploymentKind('canceled', 'Each canceled deployment of a Vercel project (deployment.canceled), by webhook.'),
];
