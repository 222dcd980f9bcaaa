import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { configFromForm, createTriggerForm, formFieldOf, kindChoices } from '../../src/web/trigger-form.js';

const choice = (kind: string) => kindChoices(TRIGGER_KINDS).find((k) => k.kind === kind)!;
const form = (entries: Array<[string, string]>) => {
  const map = new Map<string, string[]>();
  for (const [k, v] of entries) map.set(k, [...(map.get(k) ?? []), v]);
  return map;
};

describe('the trigger form and the kind registry', () => {
  it('offers every kind of the registry, with its config schema', () => {
    expect(kindChoices(TRIGGER_KINDS).map((k) => k.kind)).toEqual([...TRIGGER_KINDS.keys()]);
    expect(choice('github.new_pull_request_review').title).toBe('New pull request review');
    expect(Object.keys(choice('vercel.deployment_failed').schema.properties!)).toEqual(['project', 'environment', 'secret', 'manual']);
  });

  it("reads only the chosen kind's fields, typed as its schema says", () => {
    const config = configFromForm(
      choice('github.workflow_run_completed'),
      form([
        ['github.repo', ' octo/hello '],
        ['github.conclusions', 'failed'],
        ['github.conclusions', 'cancelled'],
        ['github.branch', ''],
        ['github.labels', 'bug, help wanted'],
        ['outlook.filter', 'from:*@acme.com'],
      ]),
    );
    expect(config).toEqual({ repo: 'octo/hello', conclusions: ['failed', 'cancelled'] });
    expect(configFromForm(choice('github.new_issue'), form([['github.org', 'octo'], ['github.labels', 'bug, help wanted'], ['github.poll_interval_seconds', '90']]))).toEqual({
      org: 'octo',
      labels: ['bug', 'help wanted'],
      poll_interval_seconds: 90,
    });
    expect(configFromForm(choice('github.new_pull_request'), form([['github.repo', 'octo/hello'], ['github.include_drafts', 'false']]))).toEqual({ repo: 'octo/hello', include_drafts: false });
  });

  it('names the field of a number that is not one', () => {
    expect(() => configFromForm(choice('outlook.new_email'), form([['outlook.poll_interval_seconds', 'soon']]))).toThrow(
      expect.objectContaining({ field: 'config.poll_interval_seconds', message: '"poll_interval_seconds" must be a number, e.g. 10.' }),
    );
    expect(() => configFromForm(choice('outlook.new_email'), form([['outlook.poll_interval_seconds', 'x']]))).toThrow(InputError);
  });

  it('refuses neither or both of Repository and Organization, naming them as the form does', () => {
    const newIssue = choice('github.new_issue');
    expect(newIssue.exactlyOneOf).toEqual(['repo', 'org']);
    expect(choice('github.new_watcher').exactlyOneOf).toBeUndefined();
    expect(() => configFromForm(newIssue, form([]))).toThrow(expect.objectContaining({ field: 'config.repo', message: 'Give exactly one of Repository or Organization.' }));
    expect(() => configFromForm(newIssue, form([['github.repo', 'octo/hello'], ['github.org', 'octo']]))).toThrow('Give exactly one of Repository or Organization, not both.');
    expect(configFromForm(newIssue, form([['github.org', 'octo']]))).toEqual({ org: 'octo' });
  });

  it("maps an error's field to the form's field", () => {
    expect(formFieldOf('config.filter', 'outlook')).toBe('outlook.filter');
    expect(formFieldOf('config.labels.0', 'github')).toBe('github.labels');
    expect(formFieldOf('account', 'github')).toBe('account');
    expect(formFieldOf('forward_url', 'github')).toBeUndefined();
    expect(formFieldOf(undefined, 'github')).toBeUndefined();
  });

  it('puts a message about a field that two kinds shape differently only in the chosen kind\'s copy of it', () => {
    const page = createTriggerForm({
      csrf: 'c',
      accounts: [],
      kinds: kindChoices(TRIGGER_KINDS),
      open: true,
      problem: { form: 'trigger-form', field: 'github.changes', text: 'Pick at least one change.', values: { kind: ['github.updated_pull_request'], 'github.changes': ['merged'] } },
    }).value;
    expect(page.match(/id="trigger-form-error"/g)).toHaveLength(1);
    const prField = page.slice(page.indexOf('data-kinds="github.updated_pull_request"'));
    expect(prField.slice(0, prField.indexOf('</fieldset>'))).toContain('Pick at least one change.');
    expect(page).toMatch(/value="merged" checked/);
    expect(page).toMatch(/<option value="github.updated_pull_request"[^>]* selected>/);
  });
});
