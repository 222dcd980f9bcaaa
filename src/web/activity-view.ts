import type { AuditRecord } from '../store/types.js';
import { html, type SafeHtml } from './html.js';
import { timeTag } from './time.js';

/** An audit record as the page shows it: `who` only for an admin, who sees everyone's. */
export type ActivityRow = Pick<AuditRecord, 'seq' | 'at' | 'action' | 'tool' | 'target' | 'outcome' | 'errorClass' | 'auth'> & { who?: string };

export function activitySection(rows: ActivityRow[], everyone: boolean, now: number): SafeHtml {
  return html`<section class="panel" id="activity" aria-labelledby="activity-title">
<h2 id="activity-title">Activity</h2>
<p class="muted">${everyone ? "Everyone's recent tool calls and administrative acts, newest first: you are an admin." : 'Your recent tool calls and administrative acts, newest first.'} The whole trail: <code>switchboard audit</code>.</p>
${
  rows.length
    ? html`<table>
<thead><tr><th scope="col">When</th>${everyone ? html`<th scope="col">Who</th>` : ''}<th scope="col">What</th><th scope="col">Target</th><th scope="col">Outcome</th><th scope="col">Through</th></tr></thead>
<tbody>${rows.map(
        (r) =>
          html`<tr data-seq="${r.seq}"><td>${timeTag(r.at, now)}</td>${everyone ? html`<td>${r.who ?? ''}</td>` : ''}<td><code>${r.action === 'tool.call' ? (r.tool ?? '') : r.action}</code></td><td>${r.target ?? ''}</td><td>${r.errorClass ? `${r.outcome} (${r.errorClass})` : r.outcome}</td><td>${r.auth}</td></tr>`,
      )}</tbody>
</table>`
    : html`<p class="muted" id="no-activity">Nothing yet: tool calls and changes made here or with the CLI appear as they happen.</p>`
}
</section>`;
}
