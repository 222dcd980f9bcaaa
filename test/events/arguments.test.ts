import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsError, eventsErrors } from '../../src/events/errors.js';
import { eventPayloadSchema, eventTypes, parseEventArguments, type EventType } from '../../src/events/types.js';
import { EVENTS_PAGE_SIZE, pageOf } from '../../src/mcp/events.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { startHarness, type Harness } from '../harness.js';

/** A subscription's arguments are checked as triggers_create checks a trigger's config: the same refusals, naming the same field. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const REFUSED: Array<[string, Record<string, unknown>, string]> = [
  ['github.new_issue', {}, 'repo'],
  ['github.new_issue', { repo: 'octo/hello', org: 'octo' }, 'repo'],
  ['github.new_issue', { repo: 'not a repo' }, 'repo'],
  ['github.new_issue', { org: 'octo', mode: 'poll' }, 'mode'],
  ['github.new_issue', { repo: 'octo/hello', branch: 'main' }, ''],
  ['github.new_pull_request', { repo: 'octo/hello', include_drafts: 'yes' }, 'include_drafts'],
  ['outlook.new_email', { filter: 'from:' }, 'filter'],
  ['outlook.new_email', { time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
  ['outlook.new_email', { poll_interval_seconds: 1 }, 'poll_interval_seconds'],
  ['vercel.deployment_failed', {}, 'project'],
  ['vercel.deployment_failed', { project: 'web', environment: 'development' }, 'environment'],
];

/** A refusal's lines without where they point from (config. for a trigger, arguments. for a subscription). */
const lines = (message: string, prefix: string) => message.replaceAll(`${prefix}.`, '').replace(`${prefix}: `, '');

describe('event arguments', () => {
  it.each(REFUSED)('%s %j is refused as triggers_create refuses it, naming the field', async (name, args, field) => {
    const refusal = await h.fails('triggers_create', { kind: name, config: args });
    let thrown: unknown;
    try {
      parseEventArguments(name, args);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(EventsError);
    const error = thrown as EventsError<'InvalidParams'>;
    expect(error.code).toBe(-32602);
    expect(error.data.field).toBe(field ? `arguments.${field}` : 'arguments');
    expect(lines(error.message, 'arguments')).toBe(lines(refusal, 'config'));
  });

  it('takes the config and the account apart, and refuses an empty account', () => {
    expect(parseEventArguments('github.new_issue', { repo: 'octo/hello', labels: ['bug'], account: 'work' })).toMatchObject({ config: { repo: 'octo/hello', labels: ['bug'] }, account: 'work' });
    const parsed = parseEventArguments('vercel.deployment_started', { project: 'web' });
    expect(parsed.kind.kind).toBe('vercel.deployment_started');
    expect(parsed).not.toHaveProperty('account');
    expect(() => parseEventArguments('github.new_star', { repo: 'octo/hello', account: '' })).toThrow(expect.objectContaining({ data: { field: 'arguments.account' } }));
    expect(() => parseEventArguments('github.new_star', 'octo/hello')).toThrow(expect.objectContaining({ code: -32602 }));
  });

  it('answers an unknown event name with NotFound, in the numbering asked for', () => {
    expect(() => parseEventArguments('github.push', {})).toThrow(expect.objectContaining({ name: 'NotFound', code: -32011, data: { kind: 'event' }, message: expect.stringMatching(/No event type "github.push"; events\/list names the 31 types/) }));
    expect(() => parseEventArguments('github.push', {}, eventsErrors('sep'))).toThrow(expect.objectContaining({ code: -32023 }));
  });

  it('offers nothing to a caller that may change nothing, since subscribing creates a trigger', async () => {
    expect(await eventTypes(h.deps, { readOnly: true })).toEqual([]);
    expect(await eventTypes(h.deps)).toHaveLength(31);
  });
});

describe('event type descriptors', () => {
  it("describe a kind's declared payload closed at every level, so data with an unknown field is refused", () => {
    const kind = { ...TRIGGER_KINDS.get('github.new_issue')!, payload: z.object({ issue: z.object({ number: z.number().int(), labels: z.array(z.object({ name: z.string() })) }), sender: z.string().nullable() }) };
    const schema = eventPayloadSchema(kind) as Record<string, any>;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.issue.additionalProperties).toBe(false);
    expect(schema.properties.issue.properties.labels.items.additionalProperties).toBe(false);
    const validate = new Ajv2020({ strict: true }).compile(schema);
    expect(validate({ issue: { number: 1, labels: [{ name: 'bug' }] }, sender: null })).toBe(true);
    expect(validate({ issue: { number: 1, labels: [{ name: 'bug', color: 'red' }] }, sender: null })).toBe(false);
    expect(validate({ issue: { number: 1, labels: [] }, sender: null, extra: 1 })).toBe(false);
    expect(eventPayloadSchema(TRIGGER_KINDS.get('github.new_issue')!)).toEqual(expect.objectContaining({ type: 'object' }));
  });

  it('come in pages of 50 whose cursors lead through the whole list and nowhere else', () => {
    const types = Array.from({ length: 120 }, (_, i) => ({ name: `t${i}` }) as EventType);
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = pageOf(types, cursor);
      expect(page.events.length).toBeLessThanOrEqual(EVENTS_PAGE_SIZE);
      names.push(...page.events.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toEqual(types.map((t) => t.name));
    expect(pageOf(types.slice(0, 31), undefined).nextCursor).toBeUndefined();
    const second = pageOf(types, undefined).nextCursor!;
    expect(() => pageOf(types.slice(0, 40), second)).toThrow(expect.objectContaining({ code: -32602, data: { field: 'cursor' } }));
  });
});
