import { activitySection, type ActivityRow } from './activity-view.js';
import type { Account } from '../store/types.js';
import { accountsSection } from './accounts-view.js';
import { addSection } from './add-view.js';
import { eventsSection, type EventRow } from './events-view.js';
import type { FormProblem } from './forms.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout } from './layout.js';
import type { Notice } from './session.js';
import type { KindChoice } from './trigger-form.js';
import { peopleSection, type PersonRow } from './people-view.js';
import { budgetsSection } from './budgets-view.js';
import type { UsageLine } from '../governance/usage.js';
import type { Approval } from '../store/types.js';
import { approvalsSection } from './approvals-view.js';
import type { SandboxCredential } from '../sandbox/load.js';
import { sandboxCredentialsSection } from './sandbox-view.js';
import { triggersSection, type TriggerRow } from './triggers-view.js';

/** How MCP clients reach this server: the listener's /mcp, or stdio (the client starts the command). */
export type McpEndpoint = { transport: 'http'; url: string } | { transport: 'stdio'; command: string };

export interface PageModel {
  nonce: string;
  csrf: string;
  now: number;
  notice?: Notice;
  problem?: FormProblem;
  accounts: Account[];
  triggers: TriggerRow[];
  events: EventRow[];
  /** The newest event id at render time: the live stream continues from it. */
  lastEventId: number;
  kinds: KindChoice[];
  endpoint: McpEndpoint;
  sandbox: boolean;
  /** Sandbox mode: the sample credentials the stand-ins accept. */
  sandboxCredentials?: SandboxCredential[];
  /** Why pop-up sign-in is unavailable, when it is. */
  signInUnavailable?: string;
  /** Show a sign-out button (the page is behind SWITCHBOARD_HTTP_TOKEN, or a person signed in). */
  canLogOut: boolean;
  /** The newest audit records: the viewer's own, or everyone's for an admin (`everyone`). */
  activity?: { rows: ActivityRow[]; everyone: boolean };
  /** Team mode, for an admin: everyone who signed in, and what they have. */
  people?: PersonRow[];
  /** When the policy sets budgets: their usage, the viewer's own or (`everyone`, for an admin) everyone's. */
  budgets?: { lines: UsageLine[]; everyone: boolean };
  /** The calls waiting for this viewer's decision, when the policy asks for approvals. */
  approvals?: Approval[];
}

export function integrationsPage(m: PageModel): SafeHtml {
  return layout({
    title: 'Integrations & API Keys',
    nonce: m.nonce,
    badge: m.sandbox
      ? html`<p id="sandbox-badge"><span class="sandbox">Sandbox</span> <span class="muted small">sample accounts and local stand-in providers: nothing reaches the real services</span></p>`
      : undefined,
    header: header(m),
    nav: html`<nav class="sections" aria-label="Sections"><a href="#accounts">Connected accounts</a><a href="#add">Add an integration</a>${m.sandbox && m.sandboxCredentials ? html`<a href="#sandbox-credentials">Sandbox credentials</a>` : ''}<a href="#triggers">Triggers</a><a href="#events">Recent events</a>${m.approvals ? html`<a href="#approvals">Approvals</a>` : ''}${m.budgets ? html`<a href="#budgets">Budgets</a>` : ''}${m.activity ? html`<a href="#activity">Activity</a>` : ''}</nav>`,
    body: html`<p class="intro">Connect your accounts once, here or with <code>switchboard accounts add</code>: every agent connected to this server can then use them as tools, and triggers turn what happens at the providers into events agents can read.</p>
${accountsSection(m)}
${addSection(m)}
${m.sandbox && m.sandboxCredentials ? sandboxCredentialsSection(m.sandboxCredentials) : ''}
${triggersSection(m)}
${eventsSection(m.events, m.lastEventId, m.now)}
${m.approvals ? approvalsSection({ ...m, approvals: m.approvals }) : ''}
${m.budgets ? budgetsSection(m.budgets.lines, m.budgets.everyone) : ''}
${m.activity ? activitySection(m.activity.rows, m.activity.everyone, m.now) : ''}
${m.people ? peopleSection(m.people) : ''}`,
  });
}

function header(m: PageModel): SafeHtml {
  const e = m.endpoint;
  return html`<div class="endpoint">
<label for="mcp-endpoint">${e.transport === 'http' ? 'MCP endpoint' : 'MCP over stdio, started with'}</label>
<input type="text" id="mcp-endpoint" readonly value="${e.transport === 'http' ? e.url : e.command}" size="${Math.min(40, (e.transport === 'http' ? e.url : e.command).length + 2)}">
<button type="button" class="secondary" id="copy-endpoint" hidden>Copy<span class="vh"> the MCP endpoint</span></button>
<span class="copied" id="copy-status" role="status"></span>
</div>
${m.canLogOut ? html`<form method="post" action="/logout" class="inline">${csrfField(m.csrf)}<button class="secondary" type="submit">Sign out</button></form>` : ''}`;
}
