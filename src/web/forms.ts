import { html, raw, type SafeHtml } from './html.js';
import type { Form } from './respond.js';

/** A form post that failed: which form, which of its fields (none: the form as a whole), why, and what was typed. */
export interface FormProblem {
  form: string;
  field?: string;
  text: string;
  values: Record<string, string[]>;
}

/** Secrets are never sent back to the browser: a refused token or key is typed again, as on any sign-in form. */
export function keptValues(form: Form): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  for (const [name, list] of form) if (name !== 'csrf' && !/secret$/.test(name)) values[name] = list;
  return values;
}

/**
 * One form as the page renders it: after a failed post, its fields hold what was typed and the failing field
 * carries the message (aria-invalid, aria-describedby), which takes the focus.
 */
export class FormView {
  readonly failed: boolean;

  constructor(
    readonly id: string,
    private readonly problem: FormProblem | undefined,
    /** The fields this form shows a message next to; a problem with any other field is shown at the top. */
    private readonly fields: string[],
  ) {
    this.failed = problem?.form === id;
  }

  get errorId(): string {
    return `${this.id}-error`;
  }

  /** The typed value after a failure, else the given one. */
  value(name: string, fallback = ''): string {
    return this.failed ? (this.problem!.values[name]?.[0] ?? '') : fallback;
  }

  /** Whether a checkbox or option is chosen: as typed after a failure, else its default. */
  chosen(name: string, value: string, byDefault: boolean): boolean {
    return this.failed ? (this.problem!.values[name] ?? []).includes(value) : byDefault;
  }

  private owns(name: string): boolean {
    return this.failed && this.problem!.field === name;
  }

  /** aria-describedby (the hint, and the message when this field failed) and aria-invalid for a control. */
  aria(name: string, hintId?: string): SafeHtml {
    const ids = [hintId, this.owns(name) ? this.errorId : undefined].filter(Boolean).join(' ');
    return html`${ids ? html` aria-describedby="${ids}"` : ''}${this.owns(name) ? raw(' aria-invalid="true"') : ''}`;
  }

  /** The message, placed right after the field it is about. */
  error(name: string): SafeHtml | '' {
    return this.owns(name) ? this.message() : '';
  }

  /** The message when it is about the form as a whole (or a field the form does not show). */
  topError(): SafeHtml | '' {
    if (!this.failed) return '';
    const field = this.problem!.field;
    return field !== undefined && this.fields.includes(field) ? '' : this.message();
  }

  private message(): SafeHtml {
    return html`<p class="field-error" id="${this.errorId}" role="alert" tabindex="-1" data-focus autofocus>${this.problem!.text}</p>`;
  }
}
