import type { UsageLine } from '../governance/usage.js';
import { html, type SafeHtml } from './html.js';

/** The budgets' usage in the current windows: the viewer's own, or everyone's for an admin. */
export function budgetsSection(lines: UsageLine[], everyone: boolean): SafeHtml {
  return html`<section class="panel" id="budgets" aria-labelledby="budgets-title">
<h2 id="budgets-title">Budgets</h2>
<p class="muted">${everyone ? "Everyone's use" : 'Your use'} of the policy's budgets: provider requests this hour, sales credits and emails today (UTC). At a limit, calls are refused until the window resets; <code>switchboard budgets</code> shows the same.</p>
${
  lines.length
    ? html`<table>
<thead><tr>${everyone ? html`<th scope="col">Person</th>` : ''}<th scope="col">Account</th><th scope="col">Budget</th><th scope="col">Used</th><th scope="col">Limit</th><th scope="col">Resets (UTC)</th></tr></thead>
<tbody>${lines.map(
        (l) =>
          html`<tr>${everyone ? html`<td>${l.person}</td>` : ''}<td>${l.account}</td><td>${l.budget}</td><td>${String(l.used)}</td><td>${l.limit === undefined ? '-' : String(l.limit)}</td><td>${l.resetsAt.slice(0, 16).replace('T', ' ')}</td></tr>`,
      )}</tbody>
</table>`
    : html`<p>Nothing used in the current windows.</p>`
}
</section>`;
}
