import { decideApproval, approvalsFor } from '../governance/approvals.js';
import { personOf } from '../governance/person.js';
import type { Approval } from '../store/types.js';
import type { ToolDeps } from '../tool.js';
import { errorText, type Outcome, type WebDeps } from './actions.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, noticeBox } from './layout.js';
import { field, type Form } from './respond.js';
import type { Notice } from './session.js';

/** The approvals the person viewing the page decides: their own calls' (caller rules), and every one for an admin. */
export async function approvalsOf(deps: ToolDeps, owner: string): Promise<Approval[]> {
  return approvalsFor(deps.store, await personOf(deps.store, owner), deps.audit);
}

/** The page's Approve and Deny buttons: the same decision as switchboard approvals, made by the signed-in person. */
export async function decideOnPage(w: WebDeps, form: Form): Promise<Outcome> {
  const id = field(form, 'id');
  const approve = field(form, 'decision') === 'approve';
  const owner = w.deps.owner ?? '';
  try {
    const person = await personOf(w.deps.store, owner);
    const reason = field(form, 'reason').trim() || undefined;
    const decided = await decideApproval(w.deps.store, w.deps.audit, { person, actor: { owner, auth: 'page' } }, id, { approve, reason: reason?.slice(0, 200) });
    return { ok: approve ? `Approved ${decided.id}: the agent's next ${decided.tool} call with the same arguments runs, once.` : `Denied ${decided.id}: the agent's next such call learns it was denied.` };
  } catch (error) {
    return { error: errorText(error, w) };
  }
}

export function approvalsSection(m: { csrf: string; approvals: Approval[]; notice?: Notice }): SafeHtml {
  return html`<section class="panel" id="approvals" aria-labelledby="approvals-title">
<h2 id="approvals-title">Approvals</h2>
${m.notice?.section === 'approvals' ? noticeBox(m.notice) : ''}
<p class="muted">Calls an agent made that the policy holds until a person says yes. Approve one and the agent's next identical call runs, once; deny it and that call is refused.</p>
${m.approvals.length
    ? html`<ul class="approvals">${m.approvals.map(
        (a) => html`<li id="approval-${a.id}"><p><strong>${a.tool}</strong> <span class="muted small">rule "${a.rule}", ${a.approver === 'admin' ? 'for an admin' : 'for the caller'}, expires ${a.expiresAt.slice(0, 16).replace('T', ' ')} UTC</span></p>
<p>${a.summary}</p>
<form method="post" action="/approvals/decide" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${a.id}"><input type="hidden" name="decision" value="approve">
<button type="submit">Approve<span class="vh"> ${a.id}</span></button></form>
<form method="post" action="/approvals/decide" class="inline">${csrfField(m.csrf)}<input type="hidden" name="id" value="${a.id}"><input type="hidden" name="decision" value="deny">
<label for="reason-${a.id}" class="vh">Reason for denying ${a.id}</label><input type="text" id="reason-${a.id}" name="reason" maxlength="200" placeholder="Reason (optional)">
<button class="danger secondary" type="submit">Deny<span class="vh"> ${a.id}</span></button></form></li>`,
      )}</ul>`
    : html`<p id="no-approvals">No call is waiting for you.</p>`}
</section>`;
}
