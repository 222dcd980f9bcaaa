import type { TriggerEvent } from '../store/types.js';
import { TEST_EVENT_KEY_PREFIX } from '../triggers/test-event.js';
import { html, type SafeHtml } from './html.js';
import { exactTime, timeTag } from './time.js';

export type EventRow = Pick<TriggerEvent, 'id' | 'triggerId' | 'kind' | 'dedupeKey' | 'occurredAt' | 'receivedAt' | 'summary'>;

/** Sent with "Send test event". */
export function isTestEvent(e: Pick<TriggerEvent, 'dedupeKey'>): boolean {
  return e.dedupeKey.startsWith(TEST_EVENT_KEY_PREFIX);
}

/** What the live stream sends for an event: the fields the list shows, never the payload. */
export function eventJsonForPage(e: EventRow): Record<string, unknown> {
  return {
    id: e.id,
    triggerId: e.triggerId,
    kind: e.kind,
    occurredAt: e.occurredAt,
    occurredAtExact: exactTime(e.occurredAt),
    receivedAt: e.receivedAt,
    receivedAtExact: exactTime(e.receivedAt),
    summary: e.summary,
    test: isTestEvent(e),
  };
}

/** The newest events, newest first; the page's script adds new ones at the top as the server streams them. */
export function eventsSection(events: EventRow[], lastEventId: number, now: number): SafeHtml {
  return html`<section class="panel" id="events" aria-labelledby="events-title">
<h2 id="events-title">Recent events</h2>
<p class="lead">Every trigger's events, newest first. Agents get the same events through <code>events_next</code>, the resource subscription, forwarding and <code>switchboard events tail</code>.</p>
<p class="live" id="live-status">Reload the page to see new events.</p>
<p class="muted" id="no-events" ${events.length ? 'hidden' : ''}>No events yet. “Send test event” on a trigger shows one arriving.</p>
<div role="log" aria-labelledby="events-title">
<ol class="rows events" id="event-list" data-after="${lastEventId}">${events.map((e) => eventRow(e, now))}</ol>
</div>
</section>`;
}

function eventRow(e: EventRow, now: number): SafeHtml {
  return html`<li data-event="${e.id}"><div class="when">${timeTag(e.occurredAt, now)}</div><div><div class="title-line"><code class="kind">${e.kind}</code>${
    isTestEvent(e) ? html`<span class="badge test">test</span>` : ''
  }<span class="muted small">trigger <code class="trigger">${e.triggerId}</code></span></div><div class="summary">${e.summary}</div></div></li>`;
}
