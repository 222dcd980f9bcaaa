import { html, type SafeHtml } from './html.js';

/** A person on a team server, as an admin sees them on the page: who, and how much they have; never a secret. */
export interface PersonRow {
  login: string;
  email: string | null;
  role: string;
  disabled: boolean;
  lastSeenAt: string | null;
  accounts: number;
  shared: number;
  triggers: number;
}

export function peopleSection(people: PersonRow[]): SafeHtml {
  return html`<section class="panel" id="people" aria-labelledby="people-title">
<h2 id="people-title">People</h2>
<p class="muted">Who signed in, and what they have. Only admins see this; nobody sees another's secrets or events. Disable or remove people with <code>switchboard users</code>.</p>
<table>
<thead><tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Accounts</th><th scope="col">Shared with them</th><th scope="col">Triggers</th><th scope="col">Last seen (UTC)</th></tr></thead>
<tbody>${people.map(
    (p) =>
      html`<tr><td>${p.login}${p.email ? html` <span class="muted small">${p.email}</span>` : ''}</td><td>${p.role}</td><td>${p.disabled ? 'disabled' : 'active'}</td><td>${String(p.accounts)}</td><td>${String(p.shared)}</td><td>${String(p.triggers)}</td><td>${p.lastSeenAt?.slice(0, 16).replace('T', ' ') ?? '-'}</td></tr>`,
  )}</tbody>
</table>
</section>`;
}
