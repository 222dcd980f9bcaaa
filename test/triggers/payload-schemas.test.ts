import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { payloadJsonSchema } from '../../src/schema.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import type { TriggerKind } from '../../src/contracts/triggers.js';
import { openObjects, portabilityIssues } from '../support/schema-lint.js';
import { payloadValidator } from './payload-validator.js';

type ExampleSet = Array<{ name: string; examples: Array<Record<string, any>> }>;

/** The real example payloads of @octokit/webhooks-examples, of github.com and of each GitHub Enterprise Server release it holds. */
const EXAMPLE_SETS = ['api.github.com', 'ghes-31', 'ghes-32', 'ghes-33', 'ghes-34', 'ghes-35'];
const load = createRequire(import.meta.url);
const EXAMPLES: ExampleSet = EXAMPLE_SETS.flatMap((set) => load(`@octokit/webhooks-examples/${set}/index.json`) as ExampleSet);

/** The examples' create deliveries are all of tags; GitHub sends a branch's in the same shape with ref_type "branch". */
const BRANCH_CREATES: ExampleSet = [
  { name: 'create', examples: EXAMPLES.filter((e) => e.name === 'create').flatMap((e) => e.examples.map((x) => ({ ...x, ref: 'feature/payloads', ref_type: 'branch' }))) },
];

const kinds = [...TRIGGER_KINDS.values()];
const check = payloadValidator();

/** A config that targets the example's repository (or organization) and lets every occurrence through the kind's filters. */
function configFor(kind: TriggerKind, p: Record<string, any>): Record<string, unknown> | undefined {
  const shape = kind.config.shape as Record<string, unknown>;
  const org = p.organization?.login ?? p.repository?.owner?.login;
  const target = 'repo' in shape && p.repository?.full_name ? { repo: p.repository.full_name } : org ? { org } : undefined;
  if (!target) return undefined;
  const open = { ...('on' in shape ? { on: ['issue', 'pull_request', 'review_comment'] } : {}), ...('include_deletions' in shape ? { include_deletions: true } : {}) };
  return kind.config.parse({ ...target, ...open }) as Record<string, unknown>;
}

/** Every example of every event, run through each webhook kind's own match and render, as a delivery would be. */
function examplePayloads(kind: TriggerKind): Array<Record<string, unknown>> {
  return [...EXAMPLES, ...BRANCH_CREATES].flatMap((event) =>
    event.examples.flatMap((example, i) => {
      const cfg = configFor(kind, example);
      if (!cfg) return [];
      const delivery = { id: `${event.name}-${i}`, event: event.name, payload: structuredClone(example) };
      return kind.webhook!.match(delivery, cfg).map((e) => JSON.parse(JSON.stringify(e.payload)) as Record<string, unknown>);
    }),
  );
}

/** Payloads each webhook kind renders from the examples: a kind the examples stop reaching fails here. */
const EXAMPLE_MINIMUM: Record<string, number> = {
  'github.new_repository': 4,
  'github.new_fork': 10,
  'github.new_star': 7,
  'github.new_tag': 12,
  'github.new_issue': 6,
  'github.updated_issue': 28,
  'github.new_pull_request': 11,
  'github.updated_pull_request': 11,
  'github.new_comment': 22,
  'github.new_label_on_issue': 4,
  'github.new_review_request': 1,
  'github.new_pull_request_review': 10,
  'github.new_commit': 2,
  'github.new_push': 14,
  'github.new_branch': 12,
  'github.workflow_run_completed': 8,
  'github.workflow_job_completed': 2,
  'github.new_collaborator': 20,
  'github.project_item_status_changed': 1,
  'github.new_card_in_column': 12,
  'github.new_release': 10,
  'github.new_discussion': 2,
  'github.new_discussion_comment': 2,
};

describe('payload schemas', () => {
  it('every one of the 31 kinds has one, an object schema a strict 2020-12 validator compiles, with nothing a mainstream client cannot take', () => {
    expect(kinds).toHaveLength(31);
    for (const kind of kinds) {
      const schema = payloadJsonSchema(kind.payload);
      expect(schema.type, kind.kind).toBe('object');
      expect(Object.keys(schema).filter((k) => k === 'anyOf' || k === 'oneOf' || k === 'allOf'), kind.kind).toEqual([]);
      expect(Object.keys((schema.properties as object) ?? {}).length, kind.kind).toBeGreaterThan(0);
      expect(() => check.compile(kind), kind.kind).not.toThrow();
      expect(portabilityIssues(schema, `${kind.kind} payload `)).toEqual([]);
    }
  });

  it('are closed at every object level, so a payload that validates has no field they do not name', () => {
    for (const kind of kinds) expect(openObjects(payloadJsonSchema(kind.payload)), kind.kind).toEqual([]);
    expect(JSON.stringify(kinds.map((k) => payloadJsonSchema(k.payload)))).not.toContain('"additionalProperties":true');
  });
});

describe('GitHub payloads rendered from every @octokit/webhooks-examples delivery the kind accepts', () => {
  const webhookKinds = kinds.filter((k) => k.connector === 'github' && k.webhook && Object.hasOwn(EXAMPLE_MINIMUM, k.kind));

  it('cover every GitHub kind with a webhook', () => {
    expect(kinds.filter((k) => k.connector === 'github' && k.webhook).map((k) => k.kind).sort()).toEqual(Object.keys(EXAMPLE_MINIMUM).sort());
  });

  it.each(webhookKinds.map((k) => [k.kind, k] as const))('%s: each one validates', (_name, kind) => {
    const payloads = examplePayloads(kind);
    expect(payloads.length).toBeGreaterThanOrEqual(EXAMPLE_MINIMUM[kind.kind]!);
    for (const payload of payloads) expect(check.errors(kind, payload)).toEqual([]);
  });
});

describe('strictness', () => {
  const issue = TRIGGER_KINDS.get('github.new_issue')!;
  const example = EXAMPLES.find((e) => e.name === 'issues')!.examples.find((x) => x.action === 'opened')!;
  const real = () => examplePayloads(issue)[0]!;

  it('a real payload validates as it is', () => {
    expect(check.errors(issue, real())).toEqual([]);
    expect(example.issue.title).toBe((real().issue as Record<string, unknown>).title);
  });

  it('refuses a field the schema does not name, at the top and nested, in JSON Schema and in zod alike', () => {
    const top = { ...real(), raw: { any: 'thing' } };
    expect(check.errors(issue, top).join('\n')).toMatch(/must NOT have additional properties.*raw/);
    const nested = real();
    (nested.issue as Record<string, unknown>).milestone = 'v1';
    expect(check.errors(issue, nested).join('\n')).toMatch(/\/issue must NOT have additional properties.*milestone/);
    expect(issue.payload.safeParse(top).success).toBe(false);
    expect(issue.payload.safeParse(nested).success).toBe(false);
  });

  it('refuses a wrong type, a value outside an enum, a zoneless date-time and a missing field', () => {
    const cases: Array<[string, (p: any) => void, RegExp]> = [
      ['number as text', (p) => (p.issue.number = '1347'), /\/issue\/number must be integer/],
      ['state outside the enum', (p) => (p.issue.state = 'merged'), /\/issue\/state must be equal to one of the allowed values/],
      ['date-time without a zone', (p) => (p.issue.created_at = '2019-05-15 15:20:18'), /\/issue\/created_at must match format "date-time"/],
      ['labels as one string', (p) => (p.issue.labels = 'bug'), /\/issue\/labels must be array/],
      ['no sender', (p) => delete p.sender, /must have required property 'sender'/],
    ];
    for (const [what, change, message] of cases) {
      const payload = real();
      change(payload);
      expect(check.errors(issue, payload).join('\n'), what).toMatch(message);
      expect(issue.payload.safeParse(payload).success, what).toBe(false);
    }
  });
});
